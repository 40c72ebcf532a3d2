import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ConfigError, parseConfig } from "../../src/core/config/index.ts";

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
