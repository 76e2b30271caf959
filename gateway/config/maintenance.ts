import { z } from "zod";

/** The operator's note shown while in maintenance: trimmed, 1–500 characters (it goes into every 503 body). */
export const MaintenanceMessage = z
  .string()
  .trim()
  .min(1, "maintenance message must not be empty")
  .max(500, "maintenance message must be at most 500 characters");

/** Maintenance mode (design §5): while enabled, API routes answer 503 with `message`. */
export const Maintenance = z.object({
  enabled: z.boolean(),
  message: MaintenanceMessage.optional(),
  /** When it was last switched; absent if it never was. */
  updatedAt: z.iso.datetime().optional(),
});
/** See {@link Maintenance}. */
export type Maintenance = z.infer<typeof Maintenance>;
