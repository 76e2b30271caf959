import { type Signer, id } from "ethers";
import { deployDeterministic } from "../deployment/deterministic";
import { TestNFT__factory, TestToken__factory } from "../../typechain-types";

/** Salt of the demo tokens: fixed, so they sit at the same addresses on every start. */
const DEMO_SALT = id("idwallet:demo:v1");

/** A demo ERC-20 (anyone may mint) and ERC-721 (anyone may mint an id) to try transactions with. */
export interface DemoTokens {
  readonly erc20: string;
  readonly erc721: string;
}

/** Deploys the demo tokens through the deterministic deployment proxy. */
export async function deployDemoTokens(deployer: Signer): Promise<DemoTokens> {
  const erc20 = await deployDeterministic(deployer, TestToken__factory.bytecode, DEMO_SALT);
  const erc721 = await deployDeterministic(deployer, TestNFT__factory.bytecode, DEMO_SALT);
  return { erc20: erc20.address, erc721: erc721.address };
}
