import { expect } from "chai";
import { DEFAULT_RETRY_SECONDS } from "../../../gateway/config/webhookSettings";
import { disableReason, nextAttemptAt } from "../../../gateway/webhooks/retrySchedule";

const NOW = new Date("2026-11-28T00:00:00.000Z");
const at = (ms: number) => new Date(NOW.getTime() + ms);

describe("webhooks: retry schedule and disabling", () => {
  it("waits each scheduled delay after a failed attempt, jittered by at most ±20 %, then gives up", () => {
    const schedule = [5, 300];
    expect(nextAttemptAt(schedule, 1, NOW, () => 0.5)).to.deep.equal(at(5_000));
    expect(nextAttemptAt(schedule, 1, NOW, () => 0)).to.deep.equal(at(4_000));
    expect(nextAttemptAt(schedule, 1, NOW, () => 0.999999)).to.deep.equal(at(6_000));
    expect(nextAttemptAt(schedule, 2, NOW, () => 0.5)).to.deep.equal(at(300_000));
    expect(nextAttemptAt(schedule, 3, NOW, () => 0.5)).to.equal(undefined);
  });

  it("by default tries eight times over about a day (Standard Webhooks' schedule)", () => {
    const total = DEFAULT_RETRY_SECONDS.reduce((sum, s) => sum + s, 0);
    expect(DEFAULT_RETRY_SECONDS).to.have.length(7);
    expect(total / 3600).to.be.within(27, 28);
  });

  it("disables an endpoint only after a long enough run of failures, not after a burst", () => {
    const settings = { disableAfterFailures: 5, disableAfterSeconds: 86_400 };
    const since = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
    // Fifty failures in a minute: a receiver that stumbled, not one that is gone.
    expect(disableReason({ consecutiveFailures: 50, failingSince: since(60_000) }, settings, NOW)).to.equal(undefined);
    // A day of failures, but only three attempts: not yet.
    expect(disableReason({ consecutiveFailures: 3, failingSince: since(90_000_000) }, settings, NOW)).to.equal(
      undefined,
    );
    expect(disableReason({ consecutiveFailures: 0, failingSince: undefined }, settings, NOW)).to.equal(undefined);
    expect(disableReason({ consecutiveFailures: 5, failingSince: since(86_400_000) }, settings, NOW)).to.match(
      /^5 attempts in a row failed since /,
    );
  });
});
