import { freshPostgresDatabase } from "../../helpers/postgresServer";
import { concurrentAcceptContract } from "./contract/concurrentAcceptContract";
import { concurrentAdminContract } from "./contract/concurrentAdminContract";
import { concurrentOtpContract } from "./contract/concurrentOtpContract";

// PostgreSQL only: there two instances write at once. SQLite's `begin immediate` serializes every write transaction,
// across processes too; two connections in one process cannot show it, since better-sqlite3 waits for the write lock
// synchronously, blocking the event loop the other connection's open transaction needs to finish.
concurrentAcceptContract("PostgreSQL", () => freshPostgresDatabase("two_instances"));
concurrentOtpContract("PostgreSQL", () => freshPostgresDatabase("two_instances_otp"));
concurrentAdminContract("PostgreSQL", () => freshPostgresDatabase("two_instances_admin"));
