import { TestTarget__factory, type TestTarget } from "../../typechain-types";
import { prepareServiceOnChain } from "./serviceOnChain";
import type { ServiceProcess } from "./serviceProcess";

/** A fresh chain with idwallet deployed and the service's environment (prepareServiceOnChain). */
export type ServiceChain = Awaited<ReturnType<typeof prepareServiceOnChain>>;

/** A fresh chain prepared for service processes, with a TestTarget deployed on it (what an e2e test starts from). */
export async function chainWithTarget(): Promise<{ setup: ServiceChain; target: TestTarget }> {
  const setup = await prepareServiceOnChain();
  const target = await new TestTarget__factory(await setup.chain.provider.getSigner(0)).deploy();
  await target.waitForDeployment();
  return { setup, target };
}

/** After a test: kills the service processes it started, closes what else it opened (proxies, receivers), then the chain. */
export async function stopAll(
  setup: ServiceChain,
  running: ServiceProcess[],
  opened: { close(): Promise<unknown> }[],
): Promise<void> {
  await Promise.all(running.splice(0).map((service) => service.kill()));
  await Promise.all(opened.splice(0).map((closable) => closable.close()));
  await setup.chain.close();
}
