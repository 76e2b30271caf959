/**
 * The robustness suites run in `npm test` in a fast variant and, with SOAK=1 (`npm run test:soak`), in a long
 * one: more generated inputs, longer load.
 */
export const SOAK = process.env.SOAK === "1";

/** `fast` in `npm test`, `soak` under `npm run test:soak`. */
export const bySoak = <T>(fast: T, soak: T): T => (SOAK ? soak : fast);
