import { ASK, isWellFormedKey, type KeyValue } from "./keys.ts";
import type { ScopeLayer } from "./scopes.ts";

/**
 * The runtime scope, the deepest of all: `--tools 'web_search=off,mcp:fs=on'`
 * or its environment twin `SWITCHYARD_TOOLS`; `send_message=ask` keeps a tool
 * on with each call approved first. A typo here must never silently
 * enable a tool, so anything malformed is a {@link RuntimeSpecError}.
 */
export class RuntimeSpecError extends Error {
  override readonly name = "RuntimeSpecError";
  constructor(
    /** The offending token, exactly as written. */
    readonly token: string,
    /** Where the spec came from: `--tools` or `SWITCHYARD_TOOLS`. */
    readonly source: string,
    problem: string,
  ) {
    super(
      `${source}: ${problem} in ${JSON.stringify(token)}. Write comma-separated key=value pairs with values on/off/ask (or true/false), e.g. --tools 'web_search=off,mcp:github=ask'.`,
    );
  }
}

const VALUES: Readonly<Record<string, KeyValue>> = {
  on: true,
  true: true,
  off: false,
  false: false,
  [ASK]: ASK,
};

/** Parses a runtime spec into key decisions. An empty or blank spec decides nothing. */
export function parseRuntimeSpec(spec: string, source = "--tools"): Record<string, KeyValue> {
  // A Map, not an object: a key named "__proto__" is a key like any other.
  const keys = new Map<string, KeyValue>();
  if (spec.trim() === "") return {};
  for (const raw of spec.split(",")) {
    const token = raw.trim();
    if (token === "")
      throw new RuntimeSpecError(
        raw,
        source,
        "an empty entry (two commas in a row, or a trailing comma)",
      );
    const eq = token.indexOf("=");
    if (eq < 0) throw new RuntimeSpecError(token, source, "no '=value'");
    const key = token.slice(0, eq).trim();
    const word = token.slice(eq + 1).trim();
    if (key === "") throw new RuntimeSpecError(token, source, "no key before '='");
    if (!isWellFormedKey(key)) {
      throw new RuntimeSpecError(
        token,
        source,
        `"${key}" is not a tool id, "mcp", "mcp:<server>" or "all"`,
      );
    }
    const lower = word.toLowerCase();
    const value = Object.hasOwn(VALUES, lower) ? VALUES[lower] : undefined;
    if (value === undefined) {
      throw new RuntimeSpecError(
        token,
        source,
        `"${word}" is not one of on, off, ask, true, false`,
      );
    }
    if (keys.has(key) && keys.get(key) !== value) {
      throw new RuntimeSpecError(token, source, `"${key}" is set twice with different values`);
    }
    keys.set(key, value);
  }
  return Object.fromEntries(keys);
}

/**
 * The runtime layer from the flag and the environment. The flag wins when both
 * are set; the other is not read at all, so a broken variable under a working
 * flag does not stop the process.
 */
export function runtimeLayer(
  flag: string | undefined,
  env: string | undefined,
  mode?: ScopeLayer["mode"],
): ScopeLayer {
  const keys =
    flag !== undefined
      ? parseRuntimeSpec(flag, "--tools")
      : env !== undefined
        ? parseRuntimeSpec(env, "SWITCHYARD_TOOLS")
        : {};
  return mode === undefined ? { keys } : { keys, mode };
}
