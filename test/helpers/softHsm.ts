import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type SoftHsmKeySpec, type SoftHsmToken, createSoftHsmToken } from "../../scripts/softhsm";

/** SoftHSM2 tokens in a temporary directory, this process's SOFTHSM2_CONF pointing at them until `remove()`. */
export interface TestTokens {
  readonly dir: string;
  readonly tokens: Readonly<Record<string, SoftHsmToken>>;
  /** Restores SOFTHSM2_CONF and deletes the directory: call once every signer on the tokens is closed. */
  remove(): void;
}

/**
 * Creates every token before any signer opens (SoftHSM2 lists its tokens when the module is initialised, reading
 * SOFTHSM2_CONF then), so a test file creates all it needs in one `before`.
 */
export function createTestTokens(
  specs: ReadonlyArray<{ label: string; pin: string; keys: readonly SoftHsmKeySpec[] }>,
): TestTokens {
  const previous = process.env.SOFTHSM2_CONF;
  const dir = mkdtempSync(path.join(tmpdir(), "idwallet-softhsm-"));
  const restore = () => {
    if (previous === undefined) delete process.env.SOFTHSM2_CONF;
    else process.env.SOFTHSM2_CONF = previous;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const tokens: Record<string, SoftHsmToken> = {};
    for (const spec of specs) tokens[spec.label] = createSoftHsmToken({ dir, ...spec });
    return { dir, tokens, remove: restore };
  } catch (error) {
    restore();
    throw error;
  }
}
