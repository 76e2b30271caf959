import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { requestListingContract } from "./contract/requestListingContract";

requestListingContract("SQLite", () => openDatabase(":memory:"));
requestListingContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("listing")));
