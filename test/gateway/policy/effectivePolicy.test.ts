import { expect } from "chai";
import { effectivePolicy } from "../../../gateway/policy/effectivePolicy";
import type { PolicySettings } from "../../../gateway/config/policySettings";
import type { App } from "../../../gateway/auth/app";

const DEFAULTS = { budgetGas: 1_000_000n, periodSeconds: 86_400, rate: { requests: 10, perSeconds: 1 as const } };

/** An app with `policy` set by the operator. */
const app = (testMode: boolean, policy: PolicySettings): App => ({
  id: "app",
  name: "app",
  clientId: "client",
  status: "active",
  testMode,
  delegatecallGranted: false,
  safeConfigGranted: false,
  policy,
  createdAt: "2026-11-24T00:00:00.000Z",
  updatedAt: "2026-11-24T00:00:00.000Z",
  secretRotatedAt: "2026-11-24T00:00:00.000Z",
  secretGeneration: 0,
});

describe("Effective policy", () => {
  it("holds a test-mode app to the default rate when its own allows bursts the default does not (600/min vs 10/s)", () => {
    const burst = { requests: 600, perSeconds: 60 as const };
    expect(effectivePolicy(app(true, { rate: burst }), DEFAULTS).rate).to.deep.equal(DEFAULTS.rate);
    // A slower rate stands, and a production app gets what the operator set.
    expect(effectivePolicy(app(true, { rate: { requests: 5, perSeconds: 1 as const } }), DEFAULTS).rate).to.deep.equal({
      requests: 5,
      perSeconds: 1,
    });
    expect(effectivePolicy(app(false, { rate: burst }), DEFAULTS).rate).to.deep.equal(burst);
  });
});
