import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Document,
  isAlias,
  isMap,
  isNode,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  stringify,
} from "yaml";
import { firstDuplicateKey } from "../../src/core/config/duplicate-keys.ts";
import { ConfigError } from "../../src/core/config/index.ts";
import { LineIndex } from "../../src/core/config/locate.ts";
import { parseConfig } from "../../src/platforms/config.ts";

const FILE = "fuzz.yaml";

/** parseConfig's whole contract on any input: a config, or a ConfigError that points into the file. */
function expectConfigOrConfigError(text: string): void {
  try {
    const config = parseConfig(text, FILE);
    expect(config).toHaveProperty("tools");
    expect(config).toHaveProperty("toolsets.full");
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    expect(error.file).toBe(FILE);
    expect(error.message.startsWith(FILE)).toBe(true);
    if (error.line !== undefined) {
      expect(error.line).toBeGreaterThanOrEqual(1);
      expect(error.line).toBeLessThanOrEqual(text.split(/\r\n|\r|\n/).length);
    }
  }
}

const dump = (value: unknown): string => stringify(value) ?? "";

const anything = fc.anything({
  withBoxedValues: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withDate: true,
  withSparseArray: true,
});

/** Maps shaped like the config, so the fuzzer gets past the top level into each section. */
const switchWord = fc.oneof(
  fc.boolean(),
  fc.constantFrom("on", "OFF", "True", "maybe", "", "mcp"),
  fc.string(),
);
const key = fc.oneof(
  fc.constantFrom(
    "web_search",
    "mcp",
    "all",
    "mcp:github",
    "mcp:*",
    "*",
    "full",
    "default",
    "a",
    "b",
  ),
  fc.string({ maxLength: 8 }),
);
const nameList = fc.array(key, { maxLength: 4 });
/** A few names, so includes often resolve and sometimes form cycles. */
const toolsetName = fc.constantFrom("a", "b", "c", "default", "full");
const configish = fc.record(
  {
    tools: fc.oneof(
      fc.dictionary(key, fc.oneof(switchWord, fc.dictionary(key, switchWord))),
      anything,
    ),
    toolsets: fc.oneof(
      fc.dictionary(
        fc.oneof(toolsetName, key),
        fc.oneof(
          nameList,
          fc.record(
            { tools: nameList, includes: fc.array(toolsetName, { maxLength: 3 }) },
            { requiredKeys: [] },
          ),
        ),
      ),
      anything,
    ),
    agent: fc.oneof(
      fc.record(
        {
          mode: fc.oneof(fc.constantFrom("full", "omp", "pi", "turbo"), anything),
          toolset: fc.oneof(key, anything),
          essential: fc.oneof(nameList, anything),
        },
        { requiredKeys: [] },
      ),
      anything,
    ),
    skills: fc.oneof(fc.dictionary(key, switchWord), anything),
    skill_folders: fc.oneof(
      nameList,
      fc.record(
        {
          global: fc.oneof(nameList, anything),
          workspaces: fc.oneof(
            fc.dictionary(fc.constantFrom("slack:T1", "T1", "discord:", "a:b c"), nameList),
            anything,
          ),
        },
        { requiredKeys: [] },
      ),
      anything,
    ),
    slack: anything,
  },
  { requiredKeys: [] },
);

describe("parseConfig on arbitrary input", () => {
  it("returns a config or throws ConfigError for any string", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), expectConfigOrConfigError), {
      numRuns: 500,
    });
  });

  it("returns a config or throws ConfigError for YAML-ish text", () => {
    const yamlChars = fc.constantFrom(..."ab: -[]{},&*!|>'\"#%@`?~\n\t 0on".split(""));
    fc.assert(
      fc.property(fc.string({ unit: yamlChars, maxLength: 80 }), expectConfigOrConfigError),
      { numRuns: 1000 },
    );
  });

  it("returns a config or throws ConfigError for any dumped value", () => {
    fc.assert(
      fc.property(anything, (value) => expectConfigOrConfigError(dump(value))),
      { numRuns: 500 },
    );
  });

  it("returns a config or throws ConfigError for config-shaped maps", () => {
    fc.assert(
      fc.property(configish, (value) => expectConfigOrConfigError(dump(value))),
      { numRuns: 1000 },
    );
  });
});

/** Small maps with few key names, so repeats (in block and flow maps, nested) are common. */
const repeatingMaps = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom("on", "off", "1", "~", '"x"'),
    tie("map"),
  ),
  map: fc.array(
    fc.tuple(fc.constantFrom("a", "b", "c", '"a"', "1", "01", "~", "null", ".nan"), tie("value")),
    { minLength: 1, maxLength: 5 },
  ),
}));

function block(pairs: unknown, indent: string): string {
  return (pairs as [string, unknown][])
    .map(([key, value]) =>
      typeof value === "string"
        ? `${indent}${key}: ${value}\n`
        : `${indent}${key}:\n${block(value, `${indent}  `)}`,
    )
    .join("");
}

function flow(pairs: unknown): string {
  const items = (pairs as [string, unknown][]).map(
    ([key, value]) => `${key}: ${typeof value === "string" ? value : flow(value)}`,
  );
  return `{${items.join(", ")}}`;
}

describe("finding repeated keys", () => {
  it("finds the same first repeat, at the same line, as yaml's own quadratic check", () => {
    fc.assert(
      fc.property(repeatingMaps.map, fc.boolean(), (pairs, asFlow) => {
        const text = asFlow ? `tools: ${flow(pairs)}\n` : `tools:\n${block(pairs, "  ")}`;
        const oracle = parseDocument(text, { lineCounter: new LineCounter() }).errors.find(
          (e) => e.code === "DUPLICATE_KEY",
        );
        const doc = parseDocument(text, { uniqueKeys: false });
        const offset = firstDuplicateKey(doc);
        if (oracle === undefined) {
          expect(offset).toBeUndefined();
          return;
        }
        expect(offset).toBeDefined();
        const counter = new LineCounter();
        parseDocument(text, { lineCounter: counter, uniqueKeys: false });
        expect(counter.linePos(offset ?? 0).line).toBe(oracle.linePos?.[0].line);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("locating a key path", () => {
  /** The plain scan the index replaced: the first pair whose key reads as the segment. */
  function scannedLine(doc: Document, counter: LineCounter, path: readonly PropertyKey[]) {
    const lineAt = (node: unknown) =>
      isNode(node) && node.range ? counter.linePos(node.range[0]).line : undefined;
    let node: unknown = doc.contents;
    let line = lineAt(node);
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find(
          (item) => isScalar(item.key) && String(item.key.value ?? "") === String(segment),
        );
        if (pair === undefined) break;
        line = lineAt(pair.key) ?? lineAt(pair.value) ?? line;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === "number") {
        node = node.items[segment];
        line = lineAt(node) ?? line;
      } else break;
    }
    return line;
  }

  it("answers every path as a scan of the document would, asked many times over", () => {
    const segment = fc.oneof(fc.constantFrom("a", "b", "c", "1", ""), fc.nat(3));
    fc.assert(
      fc.property(
        repeatingMaps.map,
        fc.array(fc.array(segment, { maxLength: 4 }), { minLength: 1, maxLength: 10 }),
        (pairs, paths) => {
          const text = `tools:\n${block(pairs, "  ")}list: [a, {b: 1}, [c]]\n`;
          const counter = new LineCounter();
          const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false });
          const index = new LineIndex(doc, counter);
          for (const path of paths) {
            for (const full of [path, ["tools", ...path], ["list", ...path]]) {
              expect(index.lineOf(full)).toBe(scannedLine(doc, counter, full));
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
