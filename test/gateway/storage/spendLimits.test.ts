import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { spendLimitsContract } from "./contract/spendLimitsContract";

spendLimitsContract("SQLite", () => openDatabase(":memory:"));
spendLimitsContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("spend_limits")));
