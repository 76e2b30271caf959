import { expect } from "chai";
import golden from "../../vectors/addresses.json";
import { InvalidUserIdError, canonicalUserId, parseUserId } from "../../../gateway/identity/userId";

/** The reason parseUserId gives for `input`, or undefined if it accepts it. */
function refusal(input: string): string | undefined {
  try {
    parseUserId(input);
    return undefined;
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidUserIdError);
    return (error as InvalidUserIdError).reason;
  }
}

const accepts = (input: string, canonical = input) => {
  expect(refusal(input), input).to.equal(undefined);
  expect(canonicalUserId(input), input).to.equal(canonical);
};
const refuses = (input: string, reason: RegExp) => expect(refusal(input), input).to.match(reason);

/** Every printable ASCII character outside `allowed` (besides the separators the parser refuses on its own). */
const asciiOutside = (allowed: RegExp): string[] =>
  Array.from({ length: 0x7f - 0x21 }, (_, i) => String.fromCharCode(0x21 + i)).filter(
    (c) => !allowed.test(c) && !/[A-Z,@]/.test(c),
  );

describe("usernames a provider can issue (published username rules)", () => {
  describe("github: 1–39 of a-z 0-9 '-', no leading, trailing or double '-'", () => {
    it("accepts the boundaries", () => {
      accepts("github:a");
      accepts(`github:${"a".repeat(39)}`);
      accepts("github:octo-cat-2");
      accepts("github:0");
    });
    it("refuses 40 characters, '-' first, last or doubled", () => {
      for (const bad of [`${"a".repeat(40)}`, "-alice", "alice-", "al--ice", "-"]) refuses(`github:${bad}`, /1 to 39/);
    });
    it("refuses every other character", () => {
      for (const c of [...asciiOutside(/[a-z0-9-]/), "é", "名", "😀"]) refuses(`github:al${c}ice`, /a github username/);
    });
  });

  for (const provider of ["x", "twitter"]) {
    describe(`${provider}: 1–15 of a-z 0-9 '_'`, () => {
      it("accepts the boundaries, '_' anywhere", () => {
        accepts(`${provider}:a`);
        accepts(`${provider}:${"a".repeat(15)}`);
        accepts(`${provider}:_jack_dorsey_`);
        accepts(`${provider}:@JACK_Dorsey`, `${provider}:jack_dorsey`);
      });
      it("refuses 16 characters and every other character", () => {
        refuses(`${provider}:${"a".repeat(16)}`, /1 to 15 characters/);
        for (const c of [...asciiOutside(/[a-z0-9_]/), "é", "😀"])
          refuses(`${provider}:ja${c}ck`, /username is 1 to 15/);
      });
      it("an attacker registers x:jack-dorsey to catch payments meant for jack_dorsey: refused", () => {
        refuses(`${provider}:jack-dorsey`, /1 to 15 characters of a-z, 0-9 and '_'/);
      });
    });
  }

  describe("telegram: 5–32 of a-z 0-9 '_', a letter first, no '_' last", () => {
    it("accepts the boundaries", () => {
      accepts("telegram:abcde");
      accepts(`telegram:a${"b".repeat(31)}`);
      accepts("telegram:jack_dorsey");
      accepts("telegram:a1_b2");
    });
    it("refuses 4 and 33 characters, a digit or '_' first, '_' last", () => {
      for (const bad of ["abcd", `a${"b".repeat(32)}`, "1abcde", "_abcde", "abcde_"]) {
        refuses(`telegram:${bad}`, /5 to 32 characters/);
      }
    });
    it("refuses every other character", () => {
      for (const c of [...asciiOutside(/[a-z0-9_]/), "δ"]) refuses(`telegram:durov${c}x`, /a telegram username/);
    });
  });

  describe("discord: 2–32 of a-z 0-9 '_' '.', no '..', no '.' first or last", () => {
    it("accepts the boundaries", () => {
      accepts("discord:ab");
      accepts(`discord:${"a".repeat(32)}`);
      accepts("discord:jack.dorsey_");
      accepts("discord:_.a");
    });
    it("refuses 1 and 33 characters, '..', '.' first or last", () => {
      for (const bad of ["a", `${"a".repeat(33)}`, "a..b", ".ab", "ab."])
        refuses(`discord:${bad}`, /2 to 32 characters/);
    });
    it("refuses the old name#1234 form and every other character", () => {
      refuses("discord:user#1234", /a discord username/);
      for (const c of [...asciiOutside(/[a-z0-9_.]/), "é"]) refuses(`discord:us${c}er`, /a discord username/);
    });
  });

  describe("apple: 1–255 of 0-9 a-f '.', no '..', no '.' first or last", () => {
    const sub = `000123.${"0123456789abcdef".repeat(2)}.0456`;
    it("accepts the observed shape and the boundaries", () => {
      accepts(`apple:${sub}`);
      accepts(`apple:${sub.toUpperCase()}`, `apple:${sub}`);
      accepts("apple:0");
      accepts(`apple:${"a".repeat(255)}`);
    });
    it("refuses 256 characters, '..', '.' first or last, letters beyond f", () => {
      for (const bad of ["a".repeat(256), "00..1", ".001", "001.", "000123.g.0456"]) {
        refuses(`apple:${bad}`, /an apple username is 1 to 255/);
      }
      for (const c of asciiOutside(/[0-9a-f.]/)) refuses(`apple:00${c}1`, /an apple username/);
    });
  });

  describe("google: the account's e-mail address", () => {
    it("accepts an address, up to 254 bytes, as e-mail does", () => {
      accepts("google:Someone@Gmail.com", "google:someone@gmail.com");
      const long = `${"a".repeat(244)}@gmail.com`;
      accepts(`google:${long}`);
    });
    it("refuses a handle, two @, or 255 bytes", () => {
      refuses("google:someone", /exactly one '@'/);
      refuses("google:a@b@gmail.com", /exactly one '@'/);
      refuses("google:someone@localhost", /domain/);
      refuses(`google:${"a".repeat(245)}@gmail.com`, /at most 254 bytes/);
    });
  });

  it("leaves tel, email and app-owned subjects as they were", () => {
    accepts("email:x_y-z@example.com");
    accepts("demo:Jack-Dorsey_1.x", "demo:Jack-Dorsey_1.x");
    accepts("tel:+1 555 123 4567", "tel:15551234567");
  });

  it("refuses every input of the golden file's refused list, inputs that once had addresses", () => {
    expect(golden.refused.inputs.length).to.be.greaterThanOrEqual(8);
    for (const { input } of golden.refused.inputs) {
      expect(refusal(input), input).to.be.a("string");
      expect(golden.vectors.some((v) => v.input === input || v.userId === input)).to.equal(false);
    }
  });
});
