import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type KeyValue, keyWord } from "../../src/core/availability/keys.ts";
import {
  parseRuntimeSpec,
  RuntimeSpecError,
  runtimeLayer,
} from "../../src/core/availability/runtime-spec.ts";

function specError(spec: string, source?: string): RuntimeSpecError {
  try {
    parseRuntimeSpec(spec, source);
  } catch (error) {
    expect(error).toBeInstanceOf(RuntimeSpecError);
    return error as RuntimeSpecError;
  }
  throw new Error(`parseRuntimeSpec accepted ${JSON.stringify(spec)}`);
}

/** Writes decisions back as a spec, the way an operator would. */
const serialize = (keys: Record<string, KeyValue>): string =>
  Object.entries(keys)
    .map(([key, value]) => `${key}=${keyWord(value)}`)
    .join(",");

describe("parseRuntimeSpec", () => {
  it("reads ask, in any case, as on with each call approved first", () => {
    expect(parseRuntimeSpec("send_message=ask,mcp:github=ASK,fetch_url=on")).toEqual({
      send_message: "ask",
      "mcp:github": "ask",
      fetch_url: true,
    });
    expect(specError("send_message=asks").message).toContain(
      '"asks" is not one of on, off, ask, true, false',
    );
  });

  it("reads comma-separated key=value pairs", () => {
    expect(parseRuntimeSpec("web_search=off,mcp:github=on,mcp=false,all=true")).toEqual({
      web_search: false,
      "mcp:github": true,
      mcp: false,
      all: true,
    });
  });

  it("reads values in any case and ignores space around entries, keys and values", () => {
    expect(parseRuntimeSpec(" a = ON , b=Off,c=TRUE ,d= fAlSe")).toEqual({
      a: true,
      b: false,
      c: true,
      d: false,
    });
  });

  it("decides nothing for an empty or blank spec", () => {
    expect(parseRuntimeSpec("")).toEqual({});
    expect(parseRuntimeSpec("   \t")).toEqual({});
  });

  it("accepts the same key twice with the same value", () => {
    expect(parseRuntimeSpec("a=on,a=true")).toEqual({ a: true });
  });

  it("refuses an empty entry, naming it", () => {
    const error = specError("a=on,,b=off");
    expect(error.token).toBe("");
    expect(error.message).toBe(
      `--tools: an empty entry (two commas in a row, or a trailing comma) in "". Write comma-separated key=value pairs with values on/off/ask (or true/false), e.g. --tools 'web_search=off,mcp:github=ask'.`,
    );
    expect(specError("a=on,").token).toBe("");
    expect(specError(",a=on").token).toBe("");
    expect(specError("a=on, ,b=on").token).toBe(" ");
  });

  it("refuses an entry with no =value, naming it", () => {
    const error = specError("web_search=off,mcp");
    expect(error.token).toBe("mcp");
    expect(error.message).toContain(`no '=value' in "mcp"`);
  });

  it("refuses a missing or malformed key, naming the token", () => {
    expect(specError("=on").message).toContain(`no key before '=' in "=on"`);
    const error = specError("web search=on");
    expect(error.token).toBe("web search=on");
    expect(error.message).toBe(
      `--tools: "web search" is not a tool id, "mcp", "mcp:<server>" or "all" in "web search=on". Write comma-separated key=value pairs with values on/off/ask (or true/false), e.g. --tools 'web_search=off,mcp:github=ask'.`,
    );
    for (const token of ["mcp:=on", "a.b=on", "MCP:github=on", `${"x".repeat(65)}=on`]) {
      expect(specError(token).token, token).toBe(token);
    }
  });

  it("refuses a value that is not on, off, true or false", () => {
    const error = specError("web_search=no");
    expect(error.token).toBe("web_search=no");
    expect(error.message).toContain(`"no" is not one of on, off, ask, true, false`);
    for (const token of ["a=", "a=1", "a=yes", "a=on=off", "a=enabled"]) {
      expect(specError(token).token, token).toBe(token);
    }
  });

  it("refuses values that are Object.prototype members", () => {
    for (const word of ["constructor", "toString", "__proto__", "valueOf", "hasOwnProperty"]) {
      expect(specError(`a=${word}`).token, word).toBe(`a=${word}`);
    }
  });

  it("refuses the same key with two different values, naming the second", () => {
    const error = specError("mcp=off,web_search=on,mcp=on");
    expect(error.token).toBe("mcp=on");
    expect(error.message).toContain(`"mcp" is set twice with different values`);
  });

  it("treats every key the same, even one named __proto__", () => {
    expect(Object.keys(parseRuntimeSpec("__proto__=on"))).toEqual(["__proto__"]);
    expect(specError("__proto__=on,__proto__=off").token).toBe("__proto__=off");
  });

  it("names where the spec came from", () => {
    const error = specError("oops", "SWITCHYARD_TOOLS");
    expect(error.source).toBe("SWITCHYARD_TOOLS");
    expect(error.message.startsWith("SWITCHYARD_TOOLS: ")).toBe(true);
  });
});

describe("runtimeLayer", () => {
  it("uses the flag when both the flag and the environment are set", () => {
    expect(runtimeLayer("a=on", "a=off")).toEqual({ keys: { a: true } });
  });

  it("does not read a broken environment variable under a working flag", () => {
    expect(runtimeLayer("a=on", "this is broken")).toEqual({ keys: { a: true } });
    expect(runtimeLayer("", "this is broken")).toEqual({ keys: {} });
  });

  it("uses the environment when there is no flag, and blames it when it is broken", () => {
    expect(runtimeLayer(undefined, "mcp=off")).toEqual({ keys: { mcp: false } });
    let thrown: unknown;
    try {
      runtimeLayer(undefined, "mcp=maybe");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RuntimeSpecError);
    expect((thrown as RuntimeSpecError).source).toBe("SWITCHYARD_TOOLS");
  });

  it("blames the flag when the flag is broken", () => {
    expect(() => runtimeLayer("mcp=maybe", undefined)).toThrow(/^--tools: /);
  });

  it("decides nothing with neither, and carries a mode when given", () => {
    expect(runtimeLayer(undefined, undefined)).toEqual({ keys: {} });
    expect(runtimeLayer(undefined, undefined, "minimal")).toEqual({ keys: {}, mode: "minimal" });
  });
});

describe("parseRuntimeSpec under fuzzing", () => {
  const isBooleanRecord = (value: unknown): boolean =>
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "boolean");

  /** Either a record of booleans, or a RuntimeSpecError naming a token of the spec: nothing else. */
  const checkOutcome = (spec: string) => {
    let result: unknown;
    try {
      result = parseRuntimeSpec(spec);
    } catch (error) {
      expect(error).toBeInstanceOf(RuntimeSpecError);
      expect(spec).toContain((error as RuntimeSpecError).token);
      return;
    }
    expect(isBooleanRecord(result)).toBe(true);
    expect(parseRuntimeSpec(serialize(result as Record<string, KeyValue>))).toEqual(result);
  };

  const word = fc.constantFrom(
    "on",
    "off",
    "true",
    "false",
    "ON",
    "Off",
    "TRUE",
    "yes",
    "",
    " ",
    "1",
    "constructor",
    "toString",
    "__proto__",
    "valueOf",
  );
  const key = fc.oneof(
    fc.constantFrom(
      "all",
      "mcp",
      "mcp:github",
      "mcp:",
      "web_search",
      "Web-Search_2",
      "plugin:notes",
      "__proto__",
      "constructor",
      "a b",
      "",
      "=",
      "mcp:git,hub",
    ),
    fc.stringMatching(/^[A-Za-z0-9_:.-]{0,12}$/),
  );
  const pad = fc.constantFrom("", " ", "  ", "\t");
  const entry = fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(pad, key, pad, word, pad)
        .map(([a, k, b, w, c]) => `${a}${k}${b}=${w}${c}`),
    },
    { weight: 1, arbitrary: fc.tuple(key, word).map(([k, w]) => `${k}${w}`) },
    { weight: 1, arbitrary: fc.constantFrom("", " ", "==", "a==on", "=") },
  );
  const structured = fc.array(entry, { maxLength: 6 }).map((entries) => entries.join(","));

  it("returns a record of booleans or throws RuntimeSpecError for any string", () => {
    fc.assert(fc.property(fc.string(), checkOutcome), { numRuns: 500 });
    fc.assert(fc.property(fc.string({ unit: "binary" }), checkOutcome), { numRuns: 300 });
  });

  it("returns a record of booleans or throws RuntimeSpecError for key=value noise", () => {
    fc.assert(fc.property(structured, checkOutcome), { numRuns: 1000 });
  });

  it("parses a well-formed spec to what it says, and its re-serialization back to the same", () => {
    const goodKey = fc.oneof(
      fc.constantFrom("all", "mcp", "mcp:github", "plugin:notes"),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/),
    );
    fc.assert(
      fc.property(
        fc.dictionary(goodKey, fc.constantFrom<KeyValue>(true, false, "ask"), { maxKeys: 8 }),
        word.filter((w) => /^(on|off|true|false)$/i.test(w)),
        (keys, _) => {
          const spec = serialize(keys);
          const parsed = parseRuntimeSpec(spec);
          expect(parsed).toEqual(keys);
          expect(parseRuntimeSpec(serialize(parsed))).toEqual(parsed);
        },
      ),
    );
  });
});
