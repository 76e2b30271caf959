import { expect } from "chai";
import {
  TypedDataEncoder,
  computeAddress,
  getBytes,
  hashMessage as ethersHashMessage,
  id,
  recoverAddress,
} from "ethers";
import { hashMessage, hashTypedData } from "viem";
import { type IdwalletClient, type UserLogin, createIdwalletClient } from "@idwallet/client";
import { kernelReplaySafeHash } from "../../gateway/identity/kernelMessage";
import { type ServedTestApp, serveTestApp } from "../helpers/servedTestApp";

const PHONE = "+14155552671";
/** The wallet signer key of the served app: the owner account's key, which signs each wallet's EIP-1271 answers. */
const WALLET_SIGNER_KEY = `0x${"3c".repeat(32)}`;

/** An EIP-712 Permit-like message, as a dapp asks a wallet to sign it. */
const MAIL = {
  domain: {
    name: "Ether Mail",
    version: "1",
    chainId: 1,
    verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
  },
  types: {
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
  message: {
    from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
    to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" },
    contents: "Hello, Bob!",
  },
} as const;

describe("client package: signMessage / signTypedData send the EIP-191 / EIP-712 hash to /v1/kernel/sign", () => {
  let service: ServedTestApp;
  let idwallet: IdwalletClient;
  let user: UserLogin;
  before(async () => {
    service = await serveTestApp({ walletSignerKey: WALLET_SIGNER_KEY });
    idwallet = createIdwalletClient({ baseUrl: service.baseUrl, ...service.credentials });
    user = await service.loginPhone(idwallet, PHONE);
  });
  after(() => service.close());

  const signer = () => ({ userId: user.userId, auth: user.userToken });
  /** The key that signed `signed`'s wallet's replay-safe hash of `hash` (EIP-1271 as the owner account checks it). */
  const signerOf = (signed: { accountAddress: string; erc1271Signature: string }, hash: string) =>
    recoverAddress(kernelReplaySafeHash(signed.accountAddress, hash), signed.erc1271Signature);

  it("signs a text message by its EIP-191 hash (viem's hashMessage, and ethers agrees)", async () => {
    const message = "Sign in to example.com\nNonce: 42";
    const signed = await idwallet.signMessage({ ...signer(), message });
    expect(signed.hash).to.equal(hashMessage(message)).and.equal(ethersHashMessage(message));
    expect(signed).to.include({ userId: "tel:14155552671", deployed: null });
    expect(signerOf(signed, ethersHashMessage(message))).to.equal(computeAddress(WALLET_SIGNER_KEY));
  });

  it("signs raw bytes by the EIP-191 hash of the bytes, not of their hex text", async () => {
    const raw = "0xdeadbeef";
    const signed = await idwallet.signMessage({ ...signer(), message: { raw } });
    expect(signed.hash)
      .to.equal(hashMessage({ raw }))
      .and.equal(ethersHashMessage(getBytes(raw)));
    expect(signed.hash).to.not.equal(ethersHashMessage(raw));
    expect(signerOf(signed, ethersHashMessage(getBytes(raw)))).to.equal(computeAddress(WALLET_SIGNER_KEY));
  });

  it("signs typed data by its EIP-712 hash (viem's hashTypedData, and ethers agrees)", async () => {
    const signed = await idwallet.signTypedData({ ...signer(), typedData: MAIL });
    const types = { Person: [...MAIL.types.Person], Mail: [...MAIL.types.Mail] };
    const hash = TypedDataEncoder.hash(MAIL.domain, types, MAIL.message);
    expect(signed.hash).to.equal(hash).and.equal(hashTypedData(MAIL));
    expect(signerOf(signed, hash)).to.equal(computeAddress(WALLET_SIGNER_KEY));
  });

  it("signs a raw hash as given, and a different message gets a different signature", async () => {
    const hash = id("pay 5 USDC to bob") as `0x${string}`;
    const signed = await idwallet.signHash({ ...signer(), hash });
    expect(signed.hash).to.equal(hash);
    const other = await idwallet.signMessage({ ...signer(), message: "pay 5 USDC to bob" });
    expect(other.erc1271Signature).to.not.equal(signed.erc1271Signature);
  });
});
