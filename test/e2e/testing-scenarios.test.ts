import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runTestCommand } from "../../src/testing/scenario-command.ts";
import { REDIS_URL } from "../support/redis.ts";

/** `switchyard test` on scenario files: the tested example's, and ones written to fail. */
const EXAMPLE = fileURLToPath(new URL("../../examples/tested-bot/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sy-scenarios-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...args: string[]): Promise<{ code: number; report: string }> {
  const lines: string[] = [];
  const code = await runTestCommand([...args, "--redis", REDIS_URL], {
    print: (l) => lines.push(l),
  });
  return { code, report: lines.join("\n") };
}

describe("switchyard test", () => {
  it("passes the tested example's scenarios, each step reported, and exits 0", async () => {
    const { code, report } = await run(join(EXAMPLE, "scenarios"));
    expect(report, report).toContain("2 of 2 scenarios passed.");
    expect(report).toMatch(/^PASS {2}answers stock questions/m);
    expect(report).toContain('ok    say "Do we have the kettle?"');
    expect(code).toBe(0);
  }, 60_000);

  it("reports every expectation that fails under its step and exits 1", async () => {
    const file = join(dir, "wrong.yaml");
    writeFileSync(
      file,
      [
        "name: expects what the bot does not do",
        `bot: ${join(EXAMPLE, "parts.js")}`,
        "model:",
        "  sequence: [plain answer]",
        "steps:",
        "  - say: hi",
        "    expect:",
        "      answer_contains: kettle",
        "      tool_called: stock_level",
        "      contract_lacks: stock_level",
      ].join("\n"),
    );
    const { code, report } = await run(file);
    expect(code).toBe(1);
    expect(report).toContain("FAIL  expects what the bot does not do");
    expect(report).toContain('the answer "plain answer" does not contain "kettle"');
    expect(report).toContain("no call of stock_level; the calls were: none");
    expect(report).toContain("the model was offered stock_level");
    expect(report).toContain("0 of 1 scenario passed, 1 failed.");
  }, 60_000);

  it("names the file and the field of a scenario it cannot read, and a missing path is a usage error", async () => {
    const file = join(dir, "broken.yaml");
    writeFileSync(file, "name: broken\nsteps:\n  - shout: hi\n");
    const broken = await run(file);
    expect(broken.code).toBe(1);
    expect(broken.report).toMatch(/error: .*broken\.yaml: steps\.0/);
    const missing = await run(join(dir, "nowhere.yaml"));
    expect(missing.code).toBe(2);
    expect(missing.report).toContain("No such file or folder");
  });
});
