/**
 * Regenerates test/vectors/addresses.json, the golden user id → address vectors. Run only on purpose
 * (`npm run vectors`): a changed vector means every wallet of that id moved. The file's `refused` list (inputs
 * that once had vectors and are now refused) is history, not derived: it is kept as it is, and each of its inputs
 * must still be refused.
 */
import { readFileSync, writeFileSync } from "node:fs";
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
  "github:a",
  "github:octo-cat",
  "twitter:@Jack",
  "x:JACK_dorsey",
  "discord:Jack.Dorsey_",
  "telegram:@Durov",
  "telegram:jack_dorsey",
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

const TARGET = path.join(__dirname, "..", "test", "vectors", "addresses.json");

/** The refused inputs of the file as it is, after checking that the rules still refuse each one. */
function keptRefusals(): unknown {
  const { refused } = JSON.parse(readFileSync(TARGET, "utf8")) as {
    refused: { description: string; inputs: { input: string }[] };
  };
  for (const { input } of refused.inputs) {
    let accepted = false;
    try {
      parseUserId(input);
      accepted = true;
    } catch {
      // refused, as it should be
    }
    if (accepted) throw new Error(`${input} is in the refused list but is accepted: give it a vector on purpose`);
  }
  return refused;
}

async function main(): Promise<void> {
  const refused = keptRefusals();
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
    refused,
  };
  writeFileSync(TARGET, `${JSON.stringify(file, null, 2)}\n`);
  console.log(`wrote ${vectors.length} vectors to ${path.relative(process.cwd(), TARGET)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
