import { createServer } from "node:net";

/** A port the local stack will listen on, and the setting that moves it. */
export interface StackPort {
  readonly port: number;
  /** What listens there, e.g. "the API". */
  readonly what: string;
  /** The environment setting of `npm start` that moves it, e.g. `PORT`. */
  readonly setting: string;
}

/** A port setting: digits only, 0 to 65535 (0: any free port); unset or empty: `fallback`. */
export function portSetting(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new StackPortError(`${name} must be a port number, not "${value}"`);
  return Number(value);
}

/** Where `npm start` listens, from HOST, PORT and DEV_RPC_PORT (defaults 127.0.0.1, 3000, 8545). */
export function listenSettings(env: Readonly<Record<string, string | undefined>>) {
  return {
    host: env.HOST || "127.0.0.1",
    apiPort: portSetting("PORT", env.PORT, 3000),
    rpcPort: portSetting("DEV_RPC_PORT", env.DEV_RPC_PORT, 8545),
  };
}

/**
 * The ports the stack listens on, each with the `npm start` setting that moves it: the API's and the chain's, and
 * the auth server's and the dust interface's when AUTH_PORT or DUST_PORT sets one.
 */
export function stackPorts(
  apiPort: number,
  rpcPort: number,
  env: Readonly<Record<string, string | undefined>>,
): StackPort[] {
  const optional = (setting: string, what: string): StackPort[] =>
    env[setting] ? [{ port: portSetting(setting, env[setting], 0), what, setting }] : [];
  return [
    { port: apiPort, what: "the API", setting: "PORT" },
    { port: rpcPort, what: "the chain's RPC", setting: "DEV_RPC_PORT" },
    ...optional("AUTH_PORT", "the auth server"),
    ...optional("DUST_PORT", "the dust interface"),
  ];
}

/** A port the local stack cannot listen on, said with the setting to change. */
export class StackPortError extends Error {
  override readonly name = "StackPortError";
}

/**
 * Checks, before anything is started or deployed, that the stack can listen on each port (0: any free port, not
 * checked) on `host`, by listening there and letting go at once. A taken port fails now, naming the setting that
 * moves it, instead of a raw EADDRINUSE once the contracts are deployed. Another process may still take a port in
 * the moment before the stack listens: then the stack's own listen fails as before.
 */
export async function checkStackPorts(host: string, ports: readonly StackPort[]): Promise<void> {
  const fixed = ports.filter((p) => p.port !== 0);
  for (const [i, a] of fixed.entries()) {
    const b = fixed.slice(i + 1).find((other) => other.port === a.port);
    if (b) {
      throw new StackPortError(
        `${a.setting} and ${b.setting} are both ${a.port}: ${a.what} and ${b.what} need a port each; set one of them to another port`,
      );
    }
  }
  for (const p of fixed) await tryListen(host, p);
}

function tryListen(host: string, { port, what, setting }: StackPort): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new StackPortError(explain(error, host, port, what, setting))),
    );
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** The failure to listen as a sentence naming the setting to change. */
function explain(error: NodeJS.ErrnoException, host: string, port: number, what: string, setting: string): string {
  switch (error.code) {
    case "EADDRINUSE":
      return `port ${port} on ${host}, for ${what}, is already in use (another local stack still running?): stop what holds it, or set ${setting} to a free port, e.g. ${setting}=${port + 1} npm start`;
    case "EACCES":
      return `port ${port} on ${host}, for ${what}, needs privileges this process lacks: set ${setting} to a port above 1023`;
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `HOST ${host} is not an address of this machine (${error.code}): set HOST to one, e.g. HOST=127.0.0.1`;
    default:
      return `cannot listen on ${host}:${port} for ${what} (${error.code ?? error.message}): set ${setting} or HOST`;
  }
}
