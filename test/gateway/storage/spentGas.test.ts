import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { spentGasContract } from "./contract/spentGasContract";

spentGasContract("SQLite", () => openDatabase(":memory:"));
spentGasContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("spent_gas")));
