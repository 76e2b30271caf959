import { expect } from "chai";
import type { RegisteredName } from "../../../gateway/identity/providerRegistration";
import { createKnownProviders } from "../../../gateway/identity/knownProviders";

describe("known providers cache", () => {
  /** A cache over a store the test sets by hand; refreshed only when the test says. */
  const cacheOver = () => {
    let rows: RegisteredName[] = [];
    let failing = false;
    const errors: unknown[] = [];
    const providers = createKnownProviders({
      store: {
        registeredNames: async () => {
          if (failing) throw new Error("database locked");
          return rows;
        },
      },
      intervalMs: 60_000,
      onError: (error) => errors.push(error),
    });
    return {
      providers,
      errors,
      set: (next: RegisteredName[]) => (rows = next),
      fail: (on: boolean) => (failing = on),
    };
  };

  it("answers ids of every provider ever registered, but gives names only to enabled ones", async () => {
    const { providers, set } = cacheOver();
    set([
      { provider: "acme", enabled: true },
      { provider: "gone", enabled: false },
    ]);
    await providers.refresh();
    expect(["github", "acme", "gone", "other"].map((p) => providers.has(p))).to.deep.equal([true, true, true, false]);
    expect(["github", "acme", "gone", "other"].map((p) => providers.hasNames(p))).to.deep.equal([
      true,
      true,
      false,
      false,
    ]);
    providers.stop();
  });

  it("changes its version when a provider is added or removed, and only then", async () => {
    const { providers, set } = cacheOver();
    await providers.refresh();
    const empty = providers.version();
    await providers.refresh();
    expect(providers.version()).to.equal(empty);
    set([{ provider: "acme", enabled: true }]);
    await providers.refresh();
    const added = providers.version();
    expect(added).to.not.equal(empty);
    await providers.refresh();
    expect(providers.version()).to.equal(added);
    set([{ provider: "acme", enabled: false }]);
    await providers.refresh();
    expect(providers.version()).to.not.equal(added);
    expect(providers.hasNames("acme")).to.equal(false);
    providers.stop();
  });

  it("keeps the last names it read when the store fails, and reports the failure", async () => {
    const { providers, set, fail, errors } = cacheOver();
    set([{ provider: "acme", enabled: true }]);
    await providers.refresh();
    fail(true);
    await providers.refresh();
    expect(errors).to.have.length(1);
    expect(providers.hasNames("acme")).to.equal(true);
    providers.stop();
  });
});
