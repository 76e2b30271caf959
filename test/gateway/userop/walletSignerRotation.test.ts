import { expect } from "chai";
import { Wallet, hexlify, randomBytes } from "ethers";
import { strandedBy } from "../../../gateway/userop/walletSignerRotation";
import type { TxRecord, WalletTxRecord } from "../../../gateway/transactions/txRecord";
import { encodePaymasterAndData } from "../../../gateway/userop/sponsorship";
import { personalDigest } from "../../../gateway/userop/words";
import { parseKeysCommand } from "../../../scripts/admin/keysArgs";
import { signCustodyRoot } from "../../../gateway/userop/custodyRoot";
import { buildUserOp } from "../../helpers/userOps";

const OLD = new Wallet("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const NEW = new Wallet("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
const NOW = new Date("2026-11-25T12:00:00Z");
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

const CHAIN = { chainId: 31337n, entryPoint: "0x0000000071727De22E5E9d8BAf0edAc6f37da032" };

/** A stored wallet request built for code 2.1: one of three operations under a root `signer` signed. */
async function rootBuilt(id: string, signer: Wallet, validUntil: number): Promise<TxRecord> {
  const terms = {
    paymaster: "0x00000000000000000000000000000000000000bb",
    verificationGasLimit: 60_000n,
    postOpGasLimit: 0n,
    validUntil,
    validAfter: 0,
  };
  const ops = [1n, 2n, 3n].map((nonce) => buildUserOp({ sender: OLD.address, nonce, callData: "0x" }));
  const { ops: sealed } = await signCustodyRoot(
    ops.map((op) => ({ op, terms })),
    CHAIN,
    async (digest) => signer.signingKey.sign(digest).serialized,
  );
  return { id, accountType: "kernel", userOpHash: hexlify(randomBytes(32)), userOp: sealed[1] } as TxRecord;
}

/** A stored wallet request whose last build `signer` signed, its sponsorship valid until `validUntil`. */
function built(id: string, signer: Wallet | undefined, validUntil: number): TxRecord {
  const userOpHash = hexlify(randomBytes(32));
  const paymasterAndData = encodePaymasterAndData({
    paymaster: "0x00000000000000000000000000000000000000aa",
    verificationGasLimit: 50_000n,
    postOpGasLimit: 0n,
    validUntil,
    validAfter: 0,
  });
  const signature = signer ? signer.signingKey.sign(personalDigest(userOpHash)).serialized : "0x";
  return {
    id,
    accountType: "kernel",
    userOpHash: signer ? userOpHash : undefined,
    userOp: signer ? ({ paymasterAndData, signature } as WalletTxRecord["userOp"]) : undefined,
  } as TxRecord;
}

describe("wallet signer rotation: what retiring a key would strand", () => {
  it("lists requests whose last build the key signed and may still run, none signed by the other key or expired", () => {
    const requests = [
      built("old-live", OLD, seconds(NOW) + 60),
      built("old-expired", OLD, seconds(NOW) - 1),
      built("new-live", NEW, seconds(NOW) + 60),
      built("never-built", undefined, 0),
      { id: "safe", accountType: "safe" } as TxRecord,
    ];
    expect(strandedBy(requests, OLD.address, NOW, CHAIN).map((tx) => tx.id)).to.deep.equal(["old-live"]);
    expect(strandedBy(requests, NEW.address.toLowerCase(), NOW, CHAIN).map((tx) => tx.id)).to.deep.equal(["new-live"]);
  });

  it("a build of wallet code 2.1 counts for the key that signed its custody root (no signature of its own)", async () => {
    const live = await rootBuilt("root-old-live", OLD, seconds(NOW) + 60);
    const other = await rootBuilt("root-new-live", NEW, seconds(NOW) + 60);
    const expired = await rootBuilt("root-old-expired", OLD, seconds(NOW) - 1);
    expect(strandedBy([live, other, expired], OLD.address, NOW, CHAIN).map((tx) => tx.id)).to.deep.equal([
      "root-old-live",
    ]);
    // The same build read as for another chain names no key of ours: the root's digest names the chain.
    expect(strandedBy([live], OLD.address, NOW, { ...CHAIN, chainId: 1n })).to.deep.equal([]);
  });

  it("reads `keys <action> <chain> <address>` and refuses anything else, naming it", () => {
    expect(parseKeysCommand("retire-wallet-signer", ["localhost", OLD.address.toLowerCase()])).to.deep.equal({
      kind: "retire-wallet-signer",
      chain: "localhost",
      signer: OLD.address,
    });
    const refusal = (action: string | undefined, rest: string[]) => {
      try {
        parseKeysCommand(action, rest);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal(undefined, [])).to.equal(
      '"keys" needs add-wallet-signer, retire-wallet-signer or rotate-safe-operator',
    );
    expect(refusal("rotate-safe-operator", ["localhost", OLD.address, OLD.address])).to.equal(
      "the old and new operator are the same address",
    );
    expect(refusal("remove", [])).to.equal('unknown command "keys remove"');
    expect(refusal("add-wallet-signer", ["localhost"])).to.equal('"keys add-wallet-signer" takes 2 argument(s), got 1');
    expect(refusal("add-wallet-signer", ["nochain", OLD.address])).to.equal('unknown chain "nochain"');
    expect(refusal("add-wallet-signer", ["localhost", "0x12"])).to.equal('"0x12" is not an address');
  });
});
