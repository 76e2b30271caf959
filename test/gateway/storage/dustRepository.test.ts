import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { dustRepositoryContract } from "./contract/dustRepositoryContract";

dustRepositoryContract("SQLite", () => openDatabase(":memory:"));
dustRepositoryContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("dust")));
