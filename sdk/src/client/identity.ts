import { unexpectedAnswer } from "../errors.js";
import type { components } from "../generated/openapi.js";
import { dataOf, type Exchange } from "./exchange.js";

/** One resolved id: its wallet address, canonical form and ENS name. */
export type ResolvedUser = components["schemas"]["ResolverResponse"]["users"][number];

/** The most ids the service answers in one resolver request (its RESOLVER_MAX_IDS default). */
export const DEFAULT_RESOLVE_BATCH = 1000;

/** A phone user's login: the token to pass as `auth`, and who it names. */
export interface UserLogin {
  readonly userToken: string;
  readonly userId: string;
  readonly expiresIn: number;
}

/** Resolving ids to wallets, and phone login. */
export function identityMethods(exchange: Exchange, resolveBatch: number) {
  return {
    /** The kernel (or base) wallet of each id, in order; long lists are split into the service's batches. */
    async resolve(userIds: readonly string[], options: { accountType?: "kernel" | "base" } = {}) {
      const bad = userIds.find((id) => id.includes(","));
      if (bad !== undefined) throw new TypeError(`a user id cannot contain a comma: ${JSON.stringify(bad)}`);
      const users: ResolvedUser[] = [];
      for (let start = 0; start < userIds.length; start += resolveBatch) {
        const batch = userIds.slice(start, start + resolveBatch);
        const body = { userIds: batch.join(","), ...(options.accountType ? { accountType: options.accountType } : {}) };
        const answer = await exchange.asAppIfAny((headers) => exchange.api.POST("/v1/resolver", { headers, body }));
        // Each answer names its id (as sent, trimmed): a list shorter, longer or in another order would hand one
        // user's address to another id (a payout to the wrong wallet), so it is refused rather than zipped.
        if (answer.users.length !== batch.length || answer.users.some((user, i) => user.userId !== batch[i]!.trim())) {
          throw unexpectedAnswer(`the resolver answered other users than the ${batch.length} ids asked`);
        }
        users.push(...answer.users);
      }
      return users;
    },

    /** Texts a login code to a phone number (spec §4.5). */
    async signInWithOtp(input: { phone: string }) {
      return dataOf(await exchange.api.POST("/functions/v1/signInWithOTP", { body: { phone: input.phone } }));
    },

    /** Trades the code for a user token bound to this app (spec §4.6): pass it as `auth` of the user's requests. */
    async verifyOtp(input: { phone: string; code: string }): Promise<UserLogin> {
      const answer = await exchange.asApp((Authorization) =>
        exchange.api.POST("/functions/v1/verifyOTP", {
          headers: { Authorization },
          body: { phone: input.phone, token: input.code },
        }),
      );
      return { userToken: answer.access_token, userId: answer.user.id, expiresIn: answer.expires_in };
    },

    /** Every chain the service knows: chain id, status and contract addresses. */
    async networks() {
      return dataOf(await exchange.api.GET("/v1/networks"));
    },
  };
}
