import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { appsRepositoryContract } from "./contract/appsRepositoryContract";

appsRepositoryContract("SQLite", () => openDatabase(":memory:"));
appsRepositoryContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("apps")));
