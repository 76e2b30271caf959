import { expect } from "chai";
import { disperseCall, transferCall } from "../../../gateway/safe/encoding/payouts";
import { nativeValue } from "../../../gateway/safe/relay/safeRelayGas";
import type { SafeTxRecord } from "../../../gateway/transactions/txRecord";

const MULTISEND = "0x00000000000000000000000000000000000000Ad";
const A = "0x00000000000000000000000000000000000000A1";
const B = "0x00000000000000000000000000000000000000B2";
const TOKEN = "0x00000000000000000000000000000000000000C3";

/** A stored Safe request carrying `call`. */
const request = (call: { to: string; value: bigint; data: string; operation: 0 | 1 }) =>
  ({
    calls: [{ to: call.to, value: call.value, data: call.data }],
    delegatecall: call.operation === 1,
  }) as unknown as SafeTxRecord;

describe("Safe relay: the native coin a request sends", () => {
  it("is a transfer's value, and the sum of a disperse's native entries (ERC-20 entries add nothing)", () => {
    expect(nativeValue(request(transferCall({ token: undefined, to: A, amount: 7n })))).to.equal(7n);
    expect(nativeValue(request(transferCall({ token: TOKEN, to: A, amount: 7n })))).to.equal(0n);
    const batch = disperseCall(MULTISEND, [
      { token: undefined, to: A, amount: 10n ** 18n },
      { token: TOKEN, to: B, amount: 5n },
      { token: undefined, to: B, amount: 3n },
    ]);
    expect(nativeValue(request(batch))).to.equal(10n ** 18n + 3n);
  });
});
