/**
 * Regenerates test/vectors/addresses.json, the golden user id → address vectors. Run only on purpose
 * (`npm run vectors`): a changed vector means every wallet of that id moved.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { ethers } from "hardhat";
import { canonicalUserId, parseUserId } from "../gateway/identity/userId";
import { deriveWalletAddress } from "../gateway/identity/walletAddress";
import { deployIdwallet } from "./deployment/deployIdwallet";

/** Inputs covering every provider rule and its edge cases. */
export const VECTOR_INPUTS = [
  "github:alice",
  "github:Alice",
  "github:@alice",
  "GitHub:ALICE",
  "  github:alice  ",
  "github:alice.eth",
  "github:a",
  "github:ali:ce",
  "github:ünïcödé",
  "github:u\u0308ni\u0308co\u0308de\u0301",
  "github:名前",
  "github:😀emoji",
  "twitter:@Jack",
  "x:JACK_dorsey",
  "discord:user#1234",
  "telegram:@Durov",
  "telegram:Δοκιμή",
  "google:someone@gmail.com",
  "apple:001234.abcdef0123456789.0042",
  "email:alice@example.com",
  "email:Alice.Smith+tag@Example.COM",
  "email:first.last@sub.example.co.uk",
  "email:  bob@example.org ",
  "email:o'brien@example.ie",
  "tel:15551234567",
  "tel:+1 (555) 123-4567",
  "tel:+1-555-123-4567",
  "tel:+44 20 7946 0958",
  "tel:+81 3-1234-5678",
  "tel:8613800138000",
  "myapp:user-42",
  "myapp:User_42",
  "acme-corp:Some.Name",
  "demo:Alice",
  "demo:alice",
  "demo:@alice",
  " demo: 5fX9aQ2kLmUid ",
];

async function main(): Promise<void> {
  const [admin, walletKey, sponsorKey] = await ethers.getSigners();
  const { contracts } = await deployIdwallet(admin!, {
    admin: admin!.address,
    walletSigners: [walletKey!.address],
    sponsorSigners: [sponsorKey!.address],
  });
  const vectors = VECTOR_INPUTS.map((input) => {
    const userId = parseUserId(input);
    return {
      input,
      userId: canonicalUserId(input),
      kernel: deriveWalletAddress(contracts.kernelFactory, "kernel", userId),
      base: deriveWalletAddress(contracts.baseFactory, "base", userId),
    };
  });
  const file = {
    description:
      "Golden vectors: user id → wallet address for the factories of the reference deployment " +
      "(admin = Hardhat account 0). Address = CREATE2(factory, keccak256('idwallet:<type>:v1:<canonical id>'), ERC1967Proxy(implementation, '') creation code, implementation = CREATE(factory, nonce 1)). Frozen: account version 2.0.0.",
    admin: admin!.address,
    kernelFactory: contracts.kernelFactory,
    baseFactory: contracts.baseFactory,
    vectors,
  };
  const target = path.join(__dirname, "..", "test", "vectors", "addresses.json");
  writeFileSync(target, `${JSON.stringify(file, null, 2)}\n`);
  console.log(`wrote ${vectors.length} vectors to ${path.relative(process.cwd(), target)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
