import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { transactionsRepositoryContract } from "./contract/transactionsRepositoryContract";

transactionsRepositoryContract("SQLite", () => openDatabase(":memory:"));
transactionsRepositoryContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("transactions")));
