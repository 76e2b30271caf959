import { expect } from "chai";
import { registrationRefusal } from "../../../gateway/identity/providerNames";
import { isOutdatedRegistration } from "../../../gateway/identity/providerRegistration";
import { ProviderTakenError } from "../../../gateway/identity/providersRepository";

describe("identity: who may register a provider name", () => {
  const mine = { appId: "app_a", enabled: true, outdated: () => false };

  it("a free name, or the app's own removed or outdated one, may be registered", () => {
    expect(registrationRefusal("acme", "app_a", undefined)).to.equal(undefined);
    expect(registrationRefusal("acme", "app_a", { ...mine, enabled: false })).to.equal(undefined);
    expect(registrationRefusal("acme", "app_a", { ...mine, outdated: () => true })).to.equal(undefined);
  });

  it("another app never gets a name, even removed; the owner not while it is enabled and up to date", () => {
    const other = registrationRefusal("acme", "app_b", { ...mine, enabled: false });
    expect(other).to.be.instanceOf(ProviderTakenError);
    expect(other?.message).to.contain("never given to another app");
    expect(registrationRefusal("acme", "app_a", mine)?.message).to.equal("the provider acme is already registered");
  });

  it("a registration without issuer, audience or an https key set is outdated", () => {
    const key = { kind: "jwks", url: "https://id.example/jwks.json" };
    expect(isOutdatedRegistration({ key, issuer: "i", audience: "a" })).to.equal(false);
    expect(isOutdatedRegistration({ key, issuer: "i" })).to.equal(true);
    expect(
      isOutdatedRegistration({ key: { ...key, url: "http://id.example/jwks.json" }, issuer: "i", audience: "a" }),
    ).to.equal(true);
  });
});
