import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { webhookClaimsContract } from "./contract/webhookClaimsContract";
import { webhookConcurrencyContract } from "./contract/webhookConcurrencyContract";
import { webhookHardeningContract } from "./contract/webhookHardeningContract";
import { webhookOutboxContract } from "./contract/webhookOutboxContract";
import { webhooksRepositoryContract } from "./contract/webhooksRepositoryContract";

const sqlite = () => openDatabase(":memory:");
const postgres = async () => openDatabase(await freshPostgresDatabase("webhooks"));

webhooksRepositoryContract("SQLite", sqlite);
webhooksRepositoryContract("PostgreSQL", postgres);
webhookClaimsContract("SQLite", sqlite);
webhookClaimsContract("PostgreSQL", postgres);
webhookOutboxContract("SQLite", sqlite);
webhookOutboxContract("PostgreSQL", postgres);
webhookHardeningContract("SQLite", sqlite);
webhookHardeningContract("PostgreSQL", postgres);
// PostgreSQL only, as in concurrentInstances.test.ts: SQLite's write lock serializes every claim and registration.
webhookConcurrencyContract("PostgreSQL", () => freshPostgresDatabase("webhooks_two"));
