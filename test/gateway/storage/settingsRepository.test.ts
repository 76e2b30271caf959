import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { settingsRepositoryContract } from "./contract/settingsRepositoryContract";

settingsRepositoryContract("SQLite", () => openDatabase(":memory:"));
settingsRepositoryContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("settings")));
