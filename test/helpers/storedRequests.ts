import { hexlify, randomBytes } from "ethers";
import { formatUserId, parseUserId } from "../../gateway/identity/userId";
import { deriveWalletAddress } from "../../gateway/identity/walletAddress";
import { openDatabase } from "../../gateway/storage/database";
import { createRepositories } from "../../gateway/storage/repositories";

/**
 * Requests written straight into a stopped (or not yet started) service's database, as the API would have stored
 * them, so that several are due together when it starts; and their stored attempts read back. `database`: a SQLite
 * file or a postgres:// URL.
 */
export function storedRequests(database: string, kernelFactory: string) {
  const withRepositories = async <T>(use: (r: ReturnType<typeof createRepositories>) => Promise<T>): Promise<T> => {
    const opened = await openDatabase(database);
    try {
      return await use(createRepositories(opened.db, () => new Date()));
    } finally {
      await opened.close();
    }
  };
  return {
    /** Stores one call from `userIdInput`'s Kernel wallet; returns the request id. */
    store: async (userIdInput: string, to: string, data: string): Promise<string> =>
      withRepositories(async (repositories) => {
        const [app] = await repositories.apps.list();
        const userId = parseUserId(userIdInput);
        const { record } = await repositories.transactions.create({
          appId: app!.id,
          accountType: "kernel",
          userId: formatUserId(userId),
          chain: "localhost",
          sender: deriveWalletAddress(kernelFactory, "kernel", userId),
          calls: [{ to, value: 0n, data }],
          delegatecall: false,
          idempotencyKey: undefined,
          requestHash: hexlify(randomBytes(32)).slice(2),
        });
        return record.id;
      }),
    /** The stored attempts of each request. */
    attempts: async (ids: readonly string[]): Promise<number[]> =>
      withRepositories(async ({ transactions }) =>
        Promise.all(ids.map(async (id) => (await transactions.find(id))!.attempts)),
      ),
  };
}
