import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { timestampsContract } from "./contract/timestampsContract";

timestampsContract("SQLite", () => openDatabase(":memory:"));
timestampsContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("timestamps")));
