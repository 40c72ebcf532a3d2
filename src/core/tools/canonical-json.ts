import { configure } from "safe-stable-stringify";

/**
 * Canonical JSON: object keys sorted, no whitespace, `undefined` dropped.
 * The bytes of the tools array are the root of the provider's prompt cache, so
 * everything that goes on the wire is serialized through this one function.
 */
const stringify = configure({ deterministic: true, bigint: false, circularValue: Error });

export function canonicalJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) {
    throw new TypeError(
      "canonicalJson: value has no JSON representation (undefined or a function)",
    );
  }
  return text;
}
