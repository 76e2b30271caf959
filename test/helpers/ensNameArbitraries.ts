import fc from "fast-check";

/**
 * Names `<username labels>.<provider>.<domain>` for comparing the resolver's on-chain derivation with the
 * gateway's: mostly plain-ASCII names of built-in providers, biased toward the edges of each provider's
 * username rule (lengths, "-", leading 0, hex, e-mail's `at` label, ENSIP-15's "--" as 3rd and 4th
 * characters), plus app-owned providers, non-ASCII or upper-case labels and other domains, which the
 * resolver leaves to the gateway.
 */
export function ensNameArbitrary(domain: string): fc.Arbitrary<string> {
  const name = fc.tuple(fc.oneof(...PROVIDERS), fc.oneof(...DOMAINS(domain)));
  return name.map(([[provider, labels], suffix]) => [...labels, provider, suffix].join("."));
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";

/** Characters of plain labels: "-" often, so that its rules (first, last, "--") are hit. */
const plainChar = fc.oneof(
  { arbitrary: fc.constantFrom(...LETTERS), weight: 8 },
  { arbitrary: fc.constantFrom(...DIGITS), weight: 3 },
  { arbitrary: fc.constant("-"), weight: 2 },
);
const digitChar = fc.oneof(
  { arbitrary: fc.constantFrom(...DIGITS), weight: 20 },
  { arbitrary: fc.constant("-"), weight: 1 },
);
const hexChar = fc.oneof(
  { arbitrary: fc.constantFrom(..."0123456789abcdef"), weight: 40 },
  { arbitrary: fc.constantFrom("g", "z", "-"), weight: 1 },
);

/** A label of `unit` characters, sometimes given "--" as 3rd and 4th characters (not ENSIP-15 normalized). */
const label = (unit: fc.Arbitrary<string>, minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc
    .tuple(fc.string({ unit, minLength, maxLength }), fc.nat(15))
    .map(([text, dice]) => (dice === 0 && text.length >= 4 ? `${text.slice(0, 2)}--${text.slice(4)}` : text));

const labels = (unit: fc.Arbitrary<string>, minLength: number, maxLength: number, count: [number, number]) =>
  fc.array(label(unit, minLength, maxLength), { minLength: count[0], maxLength: count[1] });

/** One label, or now and then several. */
const mostlyOne = (unit: fc.Arbitrary<string>, minLength: number, maxLength: number) =>
  fc.oneof({ arbitrary: labels(unit, minLength, maxLength, [1, 1]), weight: 9 }, labels(unit, 1, 8, [0, 3]));

/** `<local labels>.at.<domain labels>`, with `at` labels missing, first, last or repeated now and then. */
const emailLabels = fc.oneof(
  {
    arbitrary: fc
      .tuple(labels(plainChar, 1, 12, [0, 3]), labels(plainChar, 1, 12, [0, 4]))
      .map(([local, host]) => [...local, "at", ...host]),
    weight: 6,
  },
  // Long addresses, around the 254-byte bound.
  {
    arbitrary: fc
      .tuple(labels(plainChar, 30, 63, [1, 3]), labels(plainChar, 20, 63, [2, 3]))
      .map(([local, host]) => [...local, "at", ...host]),
    weight: 2,
  },
  fc.array(fc.oneof(label(plainChar, 1, 8), fc.constant("at")), { minLength: 0, maxLength: 6 }),
);

type Username = fc.Arbitrary<[string, string[]]>;
const provider = (name: string, username: fc.Arbitrary<string[]>, weight: number) => ({
  arbitrary: username.map((l): [string, string[]] => [name, l]),
  weight,
});

const PROVIDERS: { arbitrary: Username; weight: number }[] = [
  provider("tel", mostlyOne(digitChar, 6, 17), 8),
  provider("email", emailLabels, 10),
  provider("google", emailLabels, 5),
  provider("github", mostlyOne(plainChar, 1, 42), 10),
  provider("x", mostlyOne(plainChar, 1, 18), 7),
  provider("twitter", mostlyOne(plainChar, 1, 18), 4),
  provider("telegram", mostlyOne(plainChar, 3, 35), 6),
  provider("discord", labels(plainChar, 1, 20, [1, 3]), 6),
  provider("apple", labels(hexChar, 1, 90, [1, 5]), 6),
  // Providers the resolver leaves to the gateway.
  provider("myapp", labels(plainChar, 1, 12, [1, 2]), 1),
  {
    arbitrary: fc.tuple(label(plainChar, 1, 10), labels(plainChar, 1, 12, [1, 2])),
    weight: 1,
  },
  // Labels that are not plain ASCII: upper case, "_", non-ASCII.
  {
    arbitrary: fc
      .tuple(
        fc.constantFrom("github", "x", "email", "tel", "discord"),
        labels(plainChar, 1, 12, [1, 3]),
        fc.constantFrom("A", "_", "é", "ü", "名", "😀"),
        fc.nat(),
      )
      .map(([p, l, odd, at]): [string, string[]] => {
        const i = at % l.length;
        return [p, l.map((text, j) => (j === i ? `${text}${odd}` : text))];
      }),
    weight: 3,
  },
  // The provider with no username.
  { arbitrary: fc.constantFrom("tel", "github", "email").map((p): [string, string[]] => [p, []]), weight: 1 },
];

const DOMAINS = (domain: string) => [
  { arbitrary: fc.constant(domain), weight: 60 },
  { arbitrary: fc.constantFrom("other.eth", "eth", `idwallet.${domain}`), weight: 1 },
];
