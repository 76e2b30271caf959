import { ProviderTakenError } from "./providersRepository";

/** The registration a provider name has now, as a new registration of it sees it. */
export interface TakenName {
  readonly appId: string;
  readonly enabled: boolean;
  /** Whether its registration is outdated: asked only of the app's own enabled registration (it reads the row). */
  readonly outdated: () => boolean;
}

/**
 * Why `appId` may not register `provider`, or undefined if it may (design §3): a name once registered is never given
 * to another app, which would control its wallets; its own app may register it again once removed, or outdated
 * (without removing it first), never while it is enabled and up to date.
 */
export function registrationRefusal(
  provider: string,
  appId: string,
  taken: TakenName | undefined,
): ProviderTakenError | undefined {
  if (taken === undefined) return undefined;
  if (taken.appId !== appId) {
    return new ProviderTakenError(
      `the provider ${provider} was registered by app ${taken.appId}; a provider name is never given to another app`,
    );
  }
  if (taken.enabled && !taken.outdated())
    return new ProviderTakenError(`the provider ${provider} is already registered`);
  return undefined;
}
