import { expect } from "chai";
import { AbiCoder, concat, getAddress, getCreate2Address, keccak256, randomBytes, toUtf8Bytes } from "ethers";
import golden from "../../vectors/addresses.json";
import { keccak256Bytes } from "../../../gateway/identity/keccak";
import { parseUserId } from "../../../gateway/identity/userId";
import {
  checksumAddress,
  deriveWalletAddress,
  factoryImplementation,
  walletSalt,
} from "../../../gateway/identity/walletAddress";
import { ERC1967_PROXY_CREATION_CODE } from "../../../gateway/identity/walletProxyCode";
import { ERC1967Proxy__factory } from "../../../typechain-types";

/** The derivation written the plain way, with ethers and the compiled proxy: the reference the fast path must equal. */
const reference = (factory: string, type: "kernel" | "base", input: string) =>
  getCreate2Address(
    factory,
    walletSalt(type, parseUserId(input)),
    keccak256(
      concat([
        ERC1967Proxy__factory.bytecode,
        AbiCoder.defaultAbiCoder().encode(["address", "bytes"], [factoryImplementation(factory), "0x"]),
      ]),
    ),
  );

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789._-ÄéßΔ名前😀";

describe("Wallet address derivation (fast path)", () => {
  it("holds the proxy creation code this project compiles (the frozen wallet proxy)", () => {
    expect(ERC1967_PROXY_CREATION_CODE).to.equal(ERC1967Proxy__factory.bytecode);
  });

  it("keccak256Bytes equals ethers' keccak256 on random inputs of every length up to 300 bytes", () => {
    for (let length = 0; length <= 300; length++) {
      const data = randomBytes(length);
      expect(`0x${keccak256Bytes(data).toString("hex")}`).to.equal(keccak256(data));
    }
  });

  it("writes the EIP-55 checksum as ethers' getAddress does, for 20,000 random addresses and the edge cases", () => {
    const edges = ["00".repeat(20), "ff".repeat(20), "0123456789".repeat(4), "abcdef".repeat(7).slice(0, 40)];
    const addresses = [
      ...edges.map((hex) => Buffer.from(hex, "hex")),
      ...Array.from({ length: 20_000 }, () => randomBytes(20)),
    ];
    for (const bytes of addresses) {
      const hex = `0x${Buffer.from(bytes).toString("hex")}`;
      expect(checksumAddress(bytes), hex).to.equal(getAddress(hex));
    }
    // At an offset, as the CREATE2 hash holds the address in its last 20 bytes.
    const hash = randomBytes(32);
    expect(checksumAddress(hash, 12)).to.equal(getAddress(`0x${Buffer.from(hash.subarray(12)).toString("hex")}`));
  });

  it("equals the plain ethers derivation for 2,000 random ids of both account types", () => {
    const chars = [...ALPHABET];
    for (let i = 0; i < 2000; i++) {
      const length = 1 + (randomBytes(1)[0]! % 40);
      const username = Array.from(randomBytes(length), (b) => chars[b % chars.length]).join("");
      // App-owned providers take any subject (built-in ones have narrower rules), so every character gets tried.
      const input = `${["myapp", "demo", "acme-corp"][i % 3]}:${username}`;
      for (const [type, factory] of [
        ["kernel", golden.kernelFactory],
        ["base", golden.baseFactory],
      ] as const) {
        expect(deriveWalletAddress(factory, type, parseUserId(input)), input).to.equal(reference(factory, type, input));
      }
    }
  });

  it("refuses a malformed factory address as ethers does", () => {
    expect(() => deriveWalletAddress("0x1234", "kernel", parseUserId("github:alice"))).to.throw(/invalid address/);
  });

  it("keeps the salt formula's preimage readable", () => {
    expect(walletSalt("kernel", parseUserId("GitHub:Alice"))).to.equal(
      keccak256(toUtf8Bytes("idwallet:kernel:v1:github:alice")),
    );
  });
});
