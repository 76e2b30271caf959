import { openDatabase } from "../../../gateway/storage/database";
import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { otpRepositoryContract } from "./contract/otpRepositoryContract";

otpRepositoryContract("SQLite", () => openDatabase(":memory:"));
otpRepositoryContract("PostgreSQL", async () => openDatabase(await freshPostgresDatabase("otp")));
