import { type Hex, hashTypedData, type TypedDataDefinition } from "viem";

/** The fields an EIP-712 domain has when its typed data does not declare EIP712Domain (EIP-712, domainSeparator). */
const DOMAIN_FIELDS = new Set(["name", "version", "chainId", "verifyingContract", "salt"]);

type Fields = readonly { readonly name: string; readonly type: string }[];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The EIP-712 hash of typed data (viem's hashTypedData), refused with a TypeError where what is signed would differ
 * from what is read: a domain field EIP712Domain does not declare (viem and wallets hash without it, ethers refuses
 * it: a `chainId` shown but not signed makes the signature good on every chain), a message field its type does not
 * declare (hashed without it), a fixed-size array of another length, and a number past 2^53 (JSON has rounded it).
 * Typed data ethers and viem make themselves always passes.
 */
export function strictTypedDataHash(typedData: TypedDataDefinition): Hex {
  const { domain = {}, types, primaryType, message } = typedData as Record<string, unknown>;
  if (!isRecord(types) || typeof primaryType !== "string") {
    throw new TypeError("typed data needs `types` and `primaryType`");
  }
  if (!isRecord(domain)) throw new TypeError("the typed data's domain must be an object");
  const declared = Object.hasOwn(types, "EIP712Domain") ? fieldsOf(types, "EIP712Domain") : undefined;
  const domainFields = new Set(declared?.map((field) => field.name) ?? DOMAIN_FIELDS);
  for (const [name, value] of Object.entries(domain)) {
    if (!domainFields.has(name))
      throw new TypeError(`domain.${name} is not a field of EIP712Domain: it would not be signed`);
    checkNumber(value, `domain.${name}`);
  }
  if (primaryType !== "EIP712Domain") checkValue(types, primaryType, message, "message");
  return hashTypedData(typedData);
}

function fieldsOf(types: Record<string, unknown>, type: string): Fields {
  const fields = types[type];
  if (!Array.isArray(fields)) throw new TypeError(`types.${type} must be a list of fields`);
  return fields as Fields;
}

function checkValue(types: Record<string, unknown>, type: string, value: unknown, path: string): void {
  const array = /^(.+)\[(\d*)\]$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) throw new TypeError(`${path} must be an array (${type})`);
    if (array[2] !== "" && value.length !== Number(array[2])) {
      throw new TypeError(`${path} has ${value.length} items, not the ${array[2]} of ${type}`);
    }
    value.forEach((item, index) => checkValue(types, array[1]!, item, `${path}[${index}]`));
  } else if (Object.hasOwn(types, type)) {
    if (!isRecord(value)) throw new TypeError(`${path} must be an object (${type})`);
    const fields = fieldsOf(types, type);
    const names = new Set(fields.map((field) => field.name));
    for (const name of Object.keys(value)) {
      if (!names.has(name)) throw new TypeError(`${path}.${name} is not a field of ${type}: it would not be signed`);
    }
    for (const field of fields) checkValue(types, field.type, value[field.name], `${path}.${field.name}`);
  } else {
    checkNumber(value, path);
  }
}

function checkNumber(value: unknown, path: string): void {
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    throw new TypeError(`${path} is ${value}, not an exact whole number: send large numbers as strings`);
  }
}
