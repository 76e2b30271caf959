import { subtask } from "hardhat/config";
import { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } from "hardhat/builtin-tasks/task-names";
import type { HardhatUserConfig, NetworksUserConfig } from "hardhat/types";
import "@nomicfoundation/hardhat-toolbox";
import { CHAINS } from "./gateway/chains/registry";
import { readEnvFile } from "./gateway/config/envFile";
// `npm run stake`: a task, since it takes arguments (its code loads only when it runs).
import "./scripts/stake";

// Deployment settings may live in .env, or the file ENV_FILE names (see .env.example), read as npm run serve and
// npm start read it: the environment wins over the file.
readEnvFile(process.env, true);

/** The compiler is pinned: a released contract's bytecode, and so every wallet address, depends on it. */
const SOLC_VERSION = "0.8.28";

// Hardhat would download solc; use the npm `solc` package (same version) so builds work offline.
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args: { solcVersion: string }, _hre, runSuper) => {
  if (args.solcVersion !== SOLC_VERSION) return runSuper();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require("solc") as { version(): string };
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: SOLC_VERSION,
    longVersion: solc.version(),
  };
});

/** `hardhat run --network <chain>` for every chain of the registry whose RPC URL is configured. */
function configuredNetworks(): NetworksUserConfig {
  const networks: NetworksUserConfig = {};
  const key = process.env.DEPLOYER_PRIVATE_KEY;
  for (const chain of CHAINS) {
    const url = process.env[`RPC_URL_${chain.name.toUpperCase().replace(/-/g, "_")}`];
    if (!url) continue;
    networks[chain.name] = { url, chainId: chain.chainId, accounts: key ? [key] : [] };
  }
  return networks;
}

const config: HardhatUserConfig = {
  solidity: {
    version: SOLC_VERSION,
    settings: {
      // paris: no PUSH0, so the same bytecode deploys on every listed chain, old L2s included.
      evmVersion: "paris",
      optimizer: { enabled: true, runs: 1_000_000 },
      metadata: { bytecodeHash: "ipfs" },
    },
  },
  networks: {
    hardhat: { chainId: 31337 },
    localhost: { url: process.env.RPC_URL_LOCALHOST ?? "http://127.0.0.1:8545", chainId: 31337 },
    ...configuredNetworks(),
  },
  mocha: { timeout: 120_000 },
  gasReporter: { enabled: false },
};

export default config;
