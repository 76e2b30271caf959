import { expect } from "chai";
import { ConfigError, loadConfig } from "../../gateway/config/load";
import golden from "../vectors/addresses.json";

/**
 * The settings of a deployment that serves a real chain (no local chain, no test deployment) with an HTTP SMS
 * provider: where the custody key rules apply in full.
 */
export const PRODUCTION_ENV: Readonly<Record<string, string>> = {
  AUTH_TOKEN_SECRET: "a-token-secret-of-at-least-32-characters!",
  CONTRACT_KERNEL_FACTORY: golden.kernelFactory,
  CONTRACT_BASE_FACTORY: golden.baseFactory,
  CONTRACT_OWNER_ACCOUNT: golden.baseFactory,
  SMS_PROVIDER: "http",
  SMS_HTTP_URL: "https://sms.example/send",
  SMS_ACCOUNT_SID: "AC0000",
  SMS_AUTH_TOKEN: "sms-token",
  SMS_FROM: "+15550000000",
  RPC_URL_MATIC: "https://polygon.example",
  AUDIT_LOG_KEY: "5e".repeat(32),
};

/** The configuration error `env` gives, or undefined if it loads. */
export function configRefusal(env: Record<string, string>): string | undefined {
  try {
    loadConfig(env);
    return undefined;
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).message;
  }
}
