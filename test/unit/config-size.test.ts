import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, MAX_CONFIG_BYTES } from "../../src/core/config/index.ts";
import { expandToolset } from "../../src/core/tools/toolsets.ts";
import { parseConfig, readConfig } from "../../src/platforms/config.ts";
import { LiveConfig, readConfigText } from "../../src/runtime/config-file.ts";
import { tool } from "../support/tools.ts";

const FILE = "big.yaml";
const KEYS = 60_000;

function lines(count: number, line: (i: number) => string): string {
  return Array.from({ length: count }, (_, i) => `${line(i)}\n`).join("");
}

function configErrorOf(text: string): ConfigError {
  try {
    readConfig(text, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

// Before parsing was made linear, each of these files took from most of a minute to several
// minutes (yaml compared every key with every earlier key of its map, and each problem's line
// was found by scanning the map again), and the toolset chains overflowed the stack.
describe("a config file with tens of thousands of keys", () => {
  it("reads a tools map of 80,000 keys, about as many as fit under the cap, every key", () => {
    const keys = 80_000;
    const text = `tools:\n${lines(keys, (i) => `  t${i}: ${i === 0 ? "off" : "on"}`)}`;
    expect(Buffer.byteLength(text)).toBeLessThan(MAX_CONFIG_BYTES);
    const { tools } = parseConfig(text, FILE);
    expect(Object.keys(tools)).toHaveLength(keys);
    expect(tools.t79999).toBe(true);
    expect(tools.t0).toBe(false);
  });

  it("reports the first of 30,000 bad values at its own line", () => {
    const text = `tools:\n${lines(KEYS, (i) => `  t${i}: ${i < KEYS / 2 ? "on" : "maybe"}`)}`;
    const error = configErrorOf(text);
    expect(error.key).toBe("tools.t30000");
    expect(error.line).toBe(30_002);
    expect(error.message).toBe(
      'big.yaml:30002: tools.t30000: "maybe" is not on/off/ask/true/false. Write t30000: on, t30000: off or t30000: ask.',
    );
  });

  it("warns about each of 60,000 unknown sections at its own line", () => {
    const { warnings } = readConfig(
      lines(KEYS, (i) => `x${i}: 1`),
      FILE,
    );
    expect(warnings).toHaveLength(KEYS);
    expect(warnings[0]?.line).toBe(1);
    expect(warnings[KEYS - 1]?.line).toBe(KEYS);
    expect(warnings[KEYS - 1]?.message).toMatch(/^big\.yaml:60000: unknown section "x59999"/);
  });

  it("finds a key repeated at the end of a 60,000-key map, at the repeat", () => {
    const text = `skills:\n${lines(KEYS, (i) => `  s${i}: on`)}  s7: off\n`;
    const error = configErrorOf(text);
    expect(error.line).toBe(KEYS + 2);
    expect(error.message).toBe(
      `big.yaml:${KEYS + 2}: YAML syntax error: a key appears twice in the same map. Keep one of them.`,
    );
  });

  it("finds a key repeated in a flow map, and the first repeat of several", () => {
    expect(configErrorOf("tools: {a: on, b: on, a: off}\n").line).toBe(1);
    const two = "tools:\n  a: on\n  a: off\nskills:\n  b: on\n  b: off\n";
    expect(configErrorOf(two).line).toBe(3);
    const nested = "tools:\n  mcp:\n    github: on\n    github: off\n  web: on\n  web: off\n";
    expect(configErrorOf(nested).line).toBe(4);
  });

  it("reads 10,000 toolsets that include each other in a chain, and expands the chain", () => {
    const n = 10_000;
    const text = `toolsets:\n${lines(n, (i) => `  t${i}: {includes: [t${i + 1}]}`)}  t${n}: [web_search]\n`;
    const { toolsets } = parseConfig(text, FILE);
    const { ids } = expandToolset(toolsets, "t0", [tool("web_search"), tool("fetch_url")]);
    expect([...ids]).toEqual(["web_search"]);
  });

  it("names a 10,000-toolset include cycle in a readable message, at the include that closes it", () => {
    const n = 10_000;
    const error = configErrorOf(
      `toolsets:\n${lines(n, (i) => `  t${i}: {includes: [t${(i + 1) % n}]}`)}`,
    );
    expect(error.key).toBe("toolsets.t9999.includes[0]");
    expect(error.line).toBe(n + 1);
    expect(error.problem).toBe(
      "Toolsets include each other in a cycle: t0 -> t1 -> t2 -> t3 -> t4 -> t5 -> … 9992 more … -> t9998 -> t9999 -> t0. Remove one of these includes.",
    );
  });
});

describe("the config size cap", () => {
  const dir = mkdtempSync(join(tmpdir(), "sy-config-size-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** 600,000 characters, 1.2 MB: under the cap counted in characters, over it in bytes. */
  const accented = `# ${"é".repeat(600_000)}\ntools:\n  web_search: off\n`;

  it("refuses text over 1 MiB, counted in bytes, naming the size, the cap and the fix", () => {
    const error = configErrorOf(accented);
    expect(error.message).toBe(
      "big.yaml: the file is 1.1 MiB (1200028 bytes), over the 1 MiB (1048576 bytes) limit for a config file. Check that --config or SWITCHYARD_CONFIG names the right file, and keep the config to settings: a few hundred keys fit in a few kilobytes.",
    );
  });

  it("refuses a file over the cap from its size, before reading it", () => {
    const huge = join(dir, "huge.yaml");
    // Sparse: 3 GiB on paper, nothing on disk. Reading it whole would fail or take the memory.
    writeFileSync(huge, "");
    truncateSync(huge, 3 * 1024 ** 3);
    expect(() => readConfigText(huge)).toThrow(ConfigError);
    expect(() => readConfigText(huge)).toThrow(
      `${huge}: the file is 3072 MiB (3221225472 bytes), over the 1 MiB (1048576 bytes) limit`,
    );
  });

  it("refuses a file whose characters fit but whose bytes do not", () => {
    const file = join(dir, "accented.yaml");
    writeFileSync(file, accented);
    expect(() => readConfigText(file)).toThrow(/the file is 1\.1 MiB \(1200028 bytes\), over/);
  });

  it("reads a file of exactly the cap", () => {
    const file = join(dir, "exact.yaml");
    const head = "tools:\n  web_search: off\n# ";
    writeFileSync(file, `${head}${"x".repeat(MAX_CONFIG_BYTES - head.length)}`);
    expect(parseConfig(readConfigText(file), file).tools).toEqual({ web_search: false });
  });

  it("keeps the last good config when the file grows past the cap while running", async () => {
    const file = join(dir, "live.yaml");
    writeFileSync(file, "tools:\n  web_search: off\n");
    const warnings: string[] = [];
    const live = new LiveConfig(file, { warn: (message) => warnings.push(message) });
    writeFileSync(file, accented);
    expect(await live.reload()).toBe(false);
    expect(live.current.tools).toEqual({ web_search: false });
    expect(warnings).toEqual([
      expect.stringMatching(
        /live\.yaml: the file is 1\.1 MiB .* limit for a config file\..* Keeping the last good config\.$/,
      ),
    ]);
  });
});
