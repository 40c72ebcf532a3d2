import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const run = promisify(execFile);
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("switchyard skills", () => {
  it("lists the built-ins, shows a global skill shadowing one, and prices the block under 30 tokens a skill", async () => {
    dir = mkdtempSync(join(tmpdir(), "sy-skills-"));
    mkdirSync(join(dir, "skills", "Meeting-Notes"), { recursive: true });
    writeFileSync(
      join(dir, "skills", "Meeting-Notes", "SKILL.md"),
      "---\nname: Meeting-Notes\ndescription: Our own way to write up meetings.\n---\nUse the team template.\n",
    );
    mkdirSync(join(dir, "skills", "broken"));
    writeFileSync(join(dir, "skills", "broken", "SKILL.md"), "---\nname: [oops\n---\n");
    writeFileSync(
      join(dir, "switchyard.yaml"),
      "skill_folders: [./skills]\nskills:\n  bot-guide: off\n",
    );

    // The two commands read different configs and write nothing: they run side by side.
    const [{ stdout, stderr }, listed] = await Promise.all([
      run(process.execPath, [BIN, "skills", "--config", join(dir, "switchyard.yaml")]),
      run(process.execPath, [BIN, "skills", "--json"], {
        cwd: fileURLToPath(new URL("../..", import.meta.url)),
      }),
    ]);
    expect(stdout.split("\n")[0]).toBe("1 of 2 skills available");
    expect(stdout).toMatch(
      /Meeting-Notes\s+on\s+global \(built-in skill meeting-notes shadowed by global skill/,
    );
    expect(stdout).toMatch(/bot-guide\s+off\s+built-in/);
    expect(stderr).toContain(join("broken", "SKILL.md"));

    const json = JSON.parse(listed.stdout);
    expect(json.total).toBe(2);
    expect(json.tokens.perSkill).toBeLessThan(30);
  }, 90_000);
});
