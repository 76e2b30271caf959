import { z } from "zod";

/** A yes/no setting: a boolean, or its usual spellings in an environment variable. */
export const flag = z
  .union([z.boolean(), z.enum(["true", "false", "1", "0", "yes", "no", "on", "off"])])
  .transform((v) => (typeof v === "boolean" ? v : ["true", "1", "yes", "on"].includes(v)));

/** A whole number from `min` to `max`, from a number or its text. */
export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
