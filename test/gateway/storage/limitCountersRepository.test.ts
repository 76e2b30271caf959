import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { limitCountersRepositoryContract } from "./contract/limitCountersRepositoryContract";

limitCountersRepositoryContract("SQLite", () => openDatabase(":memory:"));
limitCountersRepositoryContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("limit_counters")));
