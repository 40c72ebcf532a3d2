import { configure } from "safe-stable-stringify";

/**
 * Canonical JSON: object keys sorted, no whitespace, `undefined` dropped.
 * The bytes of the tools array are the root of the provider's prompt cache, so
 * everything that goes on the wire is serialized through this one function.
 */
const stringify = configure({ deterministic: true, bigint: false, circularValue: Error });

export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = stringify(value);
  } catch (error) {
    // The serializer recurses: a value nested thousands deep overflows the stack. Say so
    // plainly, so a caller's message names the cause rather than "Maximum call stack size".
    if (!(error instanceof RangeError)) throw error;
    throw new TypeError(
      "canonicalJson: the value nests too deep to serialize (thousands of levels); cap its depth before serializing it",
    );
  }
  if (text === undefined) {
    throw new TypeError(
      "canonicalJson: value has no JSON representation (undefined or a function)",
    );
  }
  return text;
}
