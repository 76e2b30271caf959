/**
 * The settings only the local stack reads (scripts/start.ts, scripts/dev.ts), beside the service's own: where it
 * listens and keeps its data, its chain node, a fresh start, HSM mode, the log format. docs/operations.md's local-stack
 * table lists them; a test holds that table to this list and the service's.
 */
export const LOCAL_STACK_SETTINGS = [
  "HOST",
  "PORT",
  "DEV_RPC_PORT",
  "DATA_DIR",
  "CHAIN_NODE",
  "FRESH",
  "IDWALLET_HSM",
  "LOG_FORMAT",
] as const;
