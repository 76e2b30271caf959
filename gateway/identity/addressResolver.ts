import { ApiError } from "../errors/apiError";
import { InvalidUserIdError, type UserId, formatUserId, parseUserId } from "./userId";
import { type AccountType, walletAddressOf } from "./walletAddress";

/** One answered user id. */
export interface ResolvedUser {
  /** The id as the client sent it (trimmed), so answers map back to requests without guessing. */
  readonly userId: string;
  readonly canonicalUserId: string;
  readonly accountAddress: string;
  /** The id's ENS name (it resolves to the kernel wallet), or null when it has none. */
  readonly ensName: string | null;
}

/** Factory address of each account type (the same on every chain). */
export type Factories = Readonly<Record<AccountType, string>>;

/** What resolving needs: all of it in memory. */
export interface ResolverOptions {
  readonly factories: Factories;
  readonly maxIds: number;
  /** Built-in and registered providers, removed ones included: the providers whose ids are answered. */
  readonly isKnownProvider: (provider: string) => boolean;
  /** The ENS name of an id, if it has one. */
  readonly ensName: (id: UserId) => string | undefined;
}

const SEPARATOR = ",";
const SHOWN_ID_LENGTH = 64;

/** A prefix of an untrusted id safe to echo in an error. */
const shown = (id: string): string => (id.length > SHOWN_ID_LENGTH ? `${id.slice(0, SHOWN_ID_LENGTH)}…` : id);

/**
 * Resolves a comma-separated list of user ids to wallet addresses and ENS names, in request order, duplicates kept.
 * No database, no RPC (the providers are read from a cache). Throws 400 TOO_MANY_USER_IDS before any parsing above
 * `maxIds`, and one 400 naming every id not answered: UNKNOWN_PROVIDER when each is only of a provider neither
 * built-in nor registered, INVALID_USER_ID otherwise.
 */
export function resolveUserIds(list: string, type: AccountType, options: ResolverOptions): ResolvedUser[] {
  const { factories, maxIds, isKnownProvider } = options;
  let count = 1;
  for (let i = list.indexOf(SEPARATOR); i !== -1; i = list.indexOf(SEPARATOR, i + 1)) {
    if (++count > maxIds) {
      throw new ApiError(400, "TOO_MANY_USER_IDS", "Too many user ids", `At most ${maxIds} user ids per request`, {
        maxUserIds: maxIds,
      });
    }
  }
  const factory = factories[type];
  const ids = list.split(SEPARATOR);
  const resolved: ResolvedUser[] = [];
  const invalid: { index: number; userId: string; reason: string }[] = [];
  let unknownProviders = 0;
  for (let index = 0; index < ids.length; index++) {
    const userId = ids[index]!.trim();
    try {
      const parsed = parseUserId(userId);
      // Design §3: no address for a provider nobody owns, where funds would wait for a future registrant.
      if (!isKnownProvider(parsed.provider)) {
        unknownProviders++;
        invalid.push({ index, userId: shown(userId), reason: `unknown provider ${parsed.provider}` });
        continue;
      }
      // Once invalid ids are found no answer is sent: skip the hashing of the rest.
      if (invalid.length > 0) continue;
      const canonicalUserId = formatUserId(parsed);
      resolved.push({
        userId,
        canonicalUserId,
        accountAddress: walletAddressOf(factory, type, canonicalUserId),
        ensName: options.ensName(parsed) ?? null,
      });
    } catch (error) {
      if (!(error instanceof InvalidUserIdError)) throw error;
      invalid.push({ index, userId: shown(userId), reason: userId === "" ? "empty user id" : error.reason });
    }
  }
  if (invalid.length > 0) {
    const onlyUnknown = unknownProviders === invalid.length;
    throw new ApiError(
      400,
      onlyUnknown ? "UNKNOWN_PROVIDER" : "INVALID_USER_ID",
      onlyUnknown ? "Unknown provider" : "Invalid user id",
      `${invalid.length} of the user ids ${invalid.length === 1 ? "is" : "are"} ${
        onlyUnknown ? "of a provider neither built-in nor registered" : "invalid"
      }: ${invalid
        .slice(0, 5)
        .map((i) => JSON.stringify(i.userId))
        .join(", ")}${invalid.length > 5 ? ", …" : ""}`,
      { invalidUserIds: invalid },
    );
  }
  return resolved;
}
