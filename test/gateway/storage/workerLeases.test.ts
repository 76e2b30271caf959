import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { workerLeasesContract } from "./contract/workerLeasesContract";

workerLeasesContract("SQLite", () => openDatabase(":memory:"));
workerLeasesContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("leases")));
