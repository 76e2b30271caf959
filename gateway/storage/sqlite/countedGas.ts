import { sql } from "kysely";

/**
 * The gas a request counts for in an app's budget: what it settled to once final; before that its reservation, or
 * what its sends already burned if more (reverted relays are charged as they are mined, design §1.7).
 */
export const countedGas = sql<number>`coalesce(settled_gas, max(reserved_gas, spent_gas))`;
