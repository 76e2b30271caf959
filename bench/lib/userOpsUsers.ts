/** The users and requests of the UserOperation benches: tel: ids with phone-login tokens, one cheap call each. */
import { createUserTokens } from "../../gateway/auth/userTokens";
import { canonicalUserId } from "../../gateway/identity/userId";
import { TestTarget__factory } from "../../typechain-types";
import type { UserOpRequest } from "./userOpsLoad";
import { BENCH_TOKEN_ISSUER, BENCH_TOKEN_SECRET } from "./userOpsStack";

/** A user of the bench and its proof. */
export interface User {
  readonly userId: string;
  readonly auth: string;
}

const target = TestTarget__factory.createInterface();

/** Distinct tel: users, each with a phone-login token minted with the service's secret. */
export async function makeUsers(count: number): Promise<User[]> {
  const tokens = createUserTokens({
    secret: BENCH_TOKEN_SECRET,
    issuer: BENCH_TOKEN_ISSUER,
    clock: () => new Date(),
    ttlSeconds: 3600,
  });
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const userId = canonicalUserId(`tel:1555${String(i).padStart(7, "0")}`);
      return { userId, auth: (await tokens.issue(userId)).token };
    }),
  );
}

/** Hands out requests round-robin over the users, each `record(n)` with a number no other request of the run uses. */
export class Requests {
  private number = 0;

  constructor(private readonly to: string) {}

  next(users: readonly User[], count: number): UserOpRequest[] {
    return Array.from({ length: count }, (_, i) => ({
      ...users[i % users.length]!,
      to: this.to,
      data: target.encodeFunctionData("record", [this.number++]),
    }));
  }
}
