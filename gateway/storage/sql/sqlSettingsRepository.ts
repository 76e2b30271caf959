import type { Kysely } from "kysely";
import { z } from "zod";
import { MaintenanceMessage, type Maintenance } from "../../config/maintenance";
import { type SettingsRepository } from "../../config/settingsRepository";
import type { DatabaseSchema } from "../schema";

const MAINTENANCE_KEY = "maintenance";

/** The JSON stored under `maintenance`; parsed on read like every row (conventions 4). */
const StoredMaintenance = z.object({ enabled: z.boolean(), message: MaintenanceMessage.optional() });

/** SettingsRepository over SQLite and PostgreSQL: one JSON document per key in `settings`. */
export class SqlSettingsRepository implements SettingsRepository {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: () => Date,
  ) {}

  async getMaintenance(): Promise<Maintenance> {
    const row = await this.db
      .selectFrom("settings")
      .select(["value", "updated_at"])
      .where("key", "=", MAINTENANCE_KEY)
      .executeTakeFirst();
    if (!row) return { enabled: false };
    const stored = StoredMaintenance.parse(JSON.parse(row.value));
    return { ...stored, updatedAt: z.iso.datetime().parse(row.updated_at) };
  }

  async setMaintenance(enabled: boolean, message?: string): Promise<void> {
    const stored: z.infer<typeof StoredMaintenance> =
      enabled && message !== undefined ? { enabled, message: MaintenanceMessage.parse(message) } : { enabled };
    const value = JSON.stringify(stored);
    const updatedAt = this.clock().toISOString();
    await this.db
      .insertInto("settings")
      .values({ key: MAINTENANCE_KEY, value, updated_at: updatedAt })
      .onConflict((conflict) => conflict.column("key").doUpdateSet({ value, updated_at: updatedAt }))
      .execute();
  }
}
