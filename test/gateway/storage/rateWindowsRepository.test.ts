import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { rateWindowsRepositoryContract } from "./contract/rateWindowsRepositoryContract";

rateWindowsRepositoryContract("SQLite", () => openDatabase(":memory:"));
rateWindowsRepositoryContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("rate_windows")));
