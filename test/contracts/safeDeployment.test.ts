import { expect } from "chai";
import { ethers } from "hardhat";
import { Contract } from "ethers";
import { deploySafeContracts } from "../../scripts/deployment/deploySafe";

/** Where SAFE_SALT puts the Safe 1.5.0 contracts: pinned, so a changed salt or build cannot move them unseen. */
const EXPECTED = {
  singleton: "0xd68711d5f41BeAAf44e74C2f7553B60A943bD0b5",
  proxyFactory: "0xeE4B3D9615EE2c01058853995287a0321aa491CA",
  fallbackHandler: "0x0844DFd55Efb7305d61B1c83686c302557E8dEDE",
  multiSendCallOnly: "0xCb67AC3Bf69c9742d006060E8E06Dea458eb4F0a",
};

describe("Safe 1.5.0 deployment", () => {
  it("places the Safe contracts at fixed addresses, and a second run sends nothing", async () => {
    const [deployer] = await ethers.getSigners();
    const lines: string[] = [];
    const safe = await deploySafeContracts(deployer!, (line) => lines.push(line));
    expect(safe).to.deep.equal(EXPECTED);
    for (const address of Object.values(safe)) expect(await ethers.provider.getCode(address)).to.not.equal("0x");
    const singleton = new Contract(safe.singleton, ["function VERSION() view returns (string)"], ethers.provider);
    expect(await singleton.getFunction("VERSION")()).to.equal("1.5.0");
    expect(lines).to.have.length(4);

    const nonce = await ethers.provider.getTransactionCount(deployer!.address);
    expect(await deploySafeContracts(deployer!)).to.deep.equal(safe);
    expect(await ethers.provider.getTransactionCount(deployer!.address)).to.equal(nonce);
  });
});
