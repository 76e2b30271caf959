/** The gas bench's section of bench/results.md: its tables and issue 36's target (≤ 1.10× SimpleAccount). */

/** The gas figures of one op: what the bundle transaction cost, what the EntryPoint charged, the bytes priced apart. */
export interface Measurement {
  readonly gasUsed: bigint;
  readonly actualGasUsed: bigint;
  /** The custody proof's calldata in the transaction: its length and its intrinsic gas (16 a non-zero byte, 4 a zero). */
  readonly apart?: { readonly bytes: number; readonly gas: number };
}

export const SCENARIOS = [
  { key: "(a)", label: "deploy + 1 transfer", transfers: 1, deploy: true },
  { key: "(b)", label: "1 transfer", transfers: 1, deploy: false },
  { key: "(c)", label: "batch of 5 transfers", transfers: 5, deploy: false },
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** The accounts, in the order bench/gas.ts sets them up; the report reads the results by these names. */
export const ACCOUNT_KEYS = [
  "kernelOwner",
  "kernelEoa",
  "simple",
  "kernel21One",
  "kernel21Many",
  "kernel20Sponsored",
  "simpleVerifying",
] as const;
type AccountKey = (typeof ACCOUNT_KEYS)[number];

/** Issue 36: each row of the custodial wallet at most this many times SimpleAccount's. */
const TARGET_RATIO = 1.1;
/** What the issue prices an L2's calldata at, per byte. */
const L2_CALLDATA_GAS_PER_BYTE = 16;

type Results = readonly (readonly (Measurement | undefined)[])[];

/** One account's measurement of one scenario row. */
const at = (results: Results, account: AccountKey, row: number): Measurement | undefined =>
  results[ACCOUNT_KEYS.indexOf(account)]![row];

/** gasUsed less the bytes priced apart: the execution an L2 charges as gas. */
const withoutApart = (m: Measurement): bigint => m.gasUsed - BigInt(m.apart?.gas ?? 0);

/** `a / b` with three decimals ("–" where `a` was not measured). */
const ratio = (a: bigint | undefined, b: bigint | undefined): string =>
  a === undefined || b === undefined ? "–" : (Number(a) / Number(b)).toFixed(3);

const num = (n: bigint | number | undefined): string => (n === undefined ? "–" : n.toString());

/** Self-paid, as the bench has always measured: 2.0.0 with the owner account and handed to an EOA, SimpleAccount. */
function selfPaidTable(results: Results): string[] {
  const lines = [
    "| Scenario | Metric | Kernel (owner account) | Kernel (EOA owner) | SimpleAccount | Kernel(EOA)/SimpleAccount | Kernel(owner account)/SimpleAccount |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  SCENARIOS.forEach((scenario, row) => {
    for (const metric of ["gasUsed", "actualGasUsed"] as const) {
      const [k1, k2, s] = (["kernelOwner", "kernelEoa", "simple"] as const).map((a) => at(results, a, row)?.[metric]);
      const name = metric === "gasUsed" ? "handleOps tx gasUsed" : "UserOperationEvent actualGasUsed";
      lines.push(
        `| ${scenario.key} ${scenario.label} | ${name} | ${num(k1)} | ${num(k2)} | ${num(s)} | ${ratio(k2, s)} | ${ratio(k1, s)} |`,
      );
    }
  });
  return lines;
}

/** Sponsored: gasUsed of each, the proof's calldata apart, and SimpleAccount self-paid for reference. */
function sponsoredTable(results: Results, largeBundle: number): string[] {
  const lines = [
    `| Scenario | Kernel 2.1 + CustodyPaymaster, bundle of 1 | Kernel 2.1 + CustodyPaymaster, bundle of ${largeBundle} | ` +
      `its proof's calldata: bytes, gas at ${L2_CALLDATA_GAS_PER_BYTE}/B | bundle of ${largeBundle}, proof's calldata apart | ` +
      "Kernel 2.0.0 + SponsorPaymaster | SimpleAccount + VerifyingPaymaster | SimpleAccount, self-paid |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  SCENARIOS.forEach((scenario, row) => {
    const many = at(results, "kernel21Many", row)!;
    const apart = many.apart ? `${many.apart.bytes} B, ${many.apart.bytes * L2_CALLDATA_GAS_PER_BYTE}` : "–";
    lines.push(
      `| ${scenario.key} ${scenario.label} | ${num(at(results, "kernel21One", row)?.gasUsed)} | ${num(many.gasUsed)} | ` +
        `${apart} | ${num(withoutApart(many))} | ${num(at(results, "kernel20Sponsored", row)?.gasUsed)} | ` +
        `${num(at(results, "simpleVerifying", row)?.gasUsed)} | ${num(at(results, "simple", row)?.gasUsed)} |`,
    );
  });
  return lines;
}

/** The ratios of the sponsored figures to SimpleAccount's, self-paid and under the VerifyingPaymaster. */
function ratioTable(results: Results, largeBundle: number): string[] {
  const lines = [
    `| Scenario | 2.1, bundle of ${largeBundle}, proof apart / SimpleAccount self-paid | same / SimpleAccount + ` +
      "VerifyingPaymaster | 2.1, bundle of 1 / SimpleAccount self-paid | same / SimpleAccount + VerifyingPaymaster | " +
      `2.1, bundle of ${largeBundle}, proof included / SimpleAccount self-paid | 2.0.0 + SponsorPaymaster / ` +
      "SimpleAccount + VerifyingPaymaster |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  SCENARIOS.forEach((scenario, row) => {
    const many = at(results, "kernel21Many", row)!;
    const one = at(results, "kernel21One", row)!.gasUsed;
    const simple = at(results, "simple", row)!.gasUsed;
    const verifying = at(results, "simpleVerifying", row)!.gasUsed;
    lines.push(
      `| ${scenario.key} ${scenario.label} | ${ratio(withoutApart(many), simple)} | ${ratio(withoutApart(many), verifying)} | ` +
        `${ratio(one, simple)} | ${ratio(one, verifying)} | ${ratio(many.gasUsed, simple)} | ` +
        `${ratio(at(results, "kernel20Sponsored", row)?.gasUsed, verifying)} |`,
    );
  });
  return lines;
}

/** Issue 36's target for each row and each SimpleAccount it is compared with: met when both 2.1 figures are. */
function targetTable(results: Results, largeBundle: number): string[] {
  const lines = ["| Target | Measured | Met |", "| --- | --: | --- |"];
  for (const [basis, name] of [
    ["simple", "SimpleAccount self-paid"],
    ["simpleVerifying", "SimpleAccount + VerifyingPaymaster"],
  ] as const) {
    SCENARIOS.forEach((scenario, row) => {
      const base = Number(at(results, basis, row)!.gasUsed);
      const one = Number(at(results, "kernel21One", row)!.gasUsed) / base;
      const many = Number(withoutApart(at(results, "kernel21Many", row)!)) / base;
      lines.push(
        `| ${scenario.key} ${scenario.label}: 2.1 custodial ≤ ${TARGET_RATIO.toFixed(2)}× ${name} | bundle of 1: ` +
          `${one.toFixed(3)}; of ${largeBundle}, proof apart: ${many.toFixed(3)} | ` +
          `${one <= TARGET_RATIO && many <= TARGET_RATIO ? "PASS" : "**FAIL**"} |`,
      );
    });
  }
  return lines;
}

/** The whole section: what was measured, the three tables, the target, the compiler settings. */
export function gasReport(results: Results, largeBundle: number, settingsLine: string): string {
  return [
    "One UserOperation a handleOps transaction on the in-process Hardhat chain, its gas limits the same for every " +
      "account; handleOps tx gasUsed is what the bundle transaction cost, actualGasUsed what the EntryPoint charged " +
      "(it counts the op's fixed preVerificationGas of 60,000).",
    "",
    "Each account paying its own gas (wallet code 2.0.0, as before this issue):",
    "",
    ...selfPaidTable(results),
    "",
    "Sponsored, handleOps tx gasUsed. A custodial wallet on code 2.1 cannot pay for itself: the CustodyPaymaster " +
      "pays and authorizes (one root signature, a proof of ceil(log2(bundle size)) entries, no wallet signature). " +
      `Bundle of 1: its root is its leaf, no proof; bundle of ${largeBundle} (the default bundle size): the same ` +
      "operation sealed under a root over it and fixed filler leaves, so it carries the proof a full bundle's " +
      `operation does, whose calldata is shown apart (an L2 charges it as data) at ${L2_CALLDATA_GAS_PER_BYTE} gas a byte; ` +
      "the proof's hashing stays in. SimpleAccount + VerifyingPaymaster: eth-infinitism's sample paymaster " +
      "(@account-abstraction/contracts 0.7.0 npm artifact) sponsoring, the owner signing: the comparable sponsored " +
      "set-up. Every paymaster has the same terms (validation gas 100,000, no postOp, the same validity window).",
    "",
    ...sponsoredTable(results, largeBundle),
    "",
    ...ratioTable(results, largeBundle),
    "",
    ...targetTable(results, largeBundle),
    "",
    settingsLine,
  ].join("\n");
}
