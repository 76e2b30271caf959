import { expect } from "chai";
import { type Lease, type LeaseHolder, mayTakeLease } from "../../../gateway/leases/lease";

const NOW = new Date("2026-05-01T00:00:10Z");
const holder: LeaseHolder = { id: "b", host: "node-1", pid: 200, pidNamespace: "boot:ns" };
const held = (by: Partial<LeaseHolder>, expiresAt = new Date(NOW.getTime() + 5_000)): Lease => ({
  name: "tx-worker:base",
  holder: { ...holder, id: "a", pid: 100, ...by },
  token: 3,
  expiresAt,
});

describe("leases: who may take a lease", () => {
  const exited = (pid: number) => pid === 100;
  const alive = () => false;

  it("an ended lease, or a holder's own, goes to whoever asks", () => {
    expect(mayTakeLease(held({ host: "node-2" }, NOW), holder, NOW, alive)).to.equal(true);
    expect(mayTakeLease(held({ id: "b" }), holder, NOW, alive)).to.equal(true);
  });

  it("a live lease of another instance, or of a live process, stays with its holder", () => {
    expect(mayTakeLease(held({ host: "node-2" }), holder, NOW, exited)).to.equal(false);
    expect(mayTakeLease(held({}), holder, NOW, alive)).to.equal(false);
  });

  it("an exited earlier process of the same instance is taken over at once, only in the same pid namespace", () => {
    expect(mayTakeLease(held({}), holder, NOW, exited)).to.equal(true);
    expect(mayTakeLease(held({ pidNamespace: "boot:other" }), holder, NOW, exited)).to.equal(false);
  });
});
