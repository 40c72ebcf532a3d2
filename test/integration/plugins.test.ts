import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineSkill, SkillDefinitionError } from "../../src/core/skills/index.ts";
import { StartOptionError } from "../../src/runtime/errors.ts";
import { loadPlugins } from "../../src/runtime/plugins.ts";

const TOOL_SRC = fileURLToHref("../../src/core/tools/tool.ts");
const SKILL_SRC = fileURLToHref("../../src/core/skills/index.ts");

function fileURLToHref(relative: string): string {
  return new URL(relative, import.meta.url).href;
}

let dir: string;

/** A plugin file in the temporary folder; it imports Switchyard's source as a plugin imports the package. */
function plugin(name: string, body: string): string {
  writeFileSync(join(dir, name), body);
  return `./${name}`;
}

const TOOL = `defineTool({ id: "weather", description: "Weather for a city.", parameters: z.object({ city: z.string() }), execute: ({ city }) => "Sunny in " + city })`;
const HEADER = `import { defineTool } from ${JSON.stringify(TOOL_SRC)};\nimport { defineSkill } from ${JSON.stringify(SKILL_SRC)};\nimport { z } from "zod";\n`;

beforeAll(() => {
  dir = mkdtempSync(join(process.cwd(), "test", ".tmp-plugins-"));
  mkdirSync(join(dir, "tools"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (spec: string) => ({ spec, baseDir: dir, from: "the config file switchyard.yaml" });

describe("plugins", () => {
  it("takes tools, skills and channels as named exports or as the default export", async () => {
    const named = plugin("named.ts", `${HEADER}export const tools = [${TOOL}];\n`);
    const byDefault = plugin(
      "default.ts",
      `${HEADER}export default { skills: [defineSkill({ name: "triage", description: "Sort bugs.", body: "# Triage" })] };\n`,
    );
    const [first, second] = await loadPlugins([at(named), at(byDefault)]);
    expect(first?.tools?.map((tool) => tool.id)).toEqual(["weather"]);
    expect(second?.skills?.map((skill) => skill.name)).toEqual(["triage"]);
  });

  it("reads a relative path from the config file's folder", async () => {
    writeFileSync(join(dir, "tools", "deep.ts"), `${HEADER}export const tools = [${TOOL}];\n`);
    const [loaded] = await loadPlugins([at("./tools/deep.ts")]);
    expect(loaded?.tools).toHaveLength(1);
  });

  it("refuses a module that exports nothing usable, naming the file and what it exported", async () => {
    const empty = plugin("empty.ts", "export const weather = 1;\nexport function helper() {}\n");
    const error = await loadPlugins([at(empty)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StartOptionError);
    expect((error as Error).message).toContain(`The plugin ./empty.ts (${join(dir, "empty.ts")})`);
    expect((error as Error).message).toContain("weather (number 1), helper (a function)");
    expect((error as Error).message).toContain("export const tools = [...]");
  });

  it("refuses a tools list holding something that is not a tool, naming its place", async () => {
    const bad = plugin("bad.ts", `${HEADER}export const tools = [${TOOL}, { id: "x" }];\n`);
    const error = await loadPlugins([at(bad)]).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/tools\[1\], an object with id/);
  });

  it("says which plugin failed to load, and why", async () => {
    const broken = plugin("broken.ts", "throw new Error('no API key');\n");
    const missing = await loadPlugins([at("./nowhere.js")]).catch((e: unknown) => e);
    const thrown = await loadPlugins([at(broken)]).catch((e: unknown) => e);
    expect((missing as Error).message).toMatch(/The plugin \.\/nowhere\.js .* failed to load/);
    expect((thrown as Error).message).toMatch(
      /The plugin \.\/broken\.ts .* failed to load: no API key/,
    );
  });

  it("says a package that is not installed is neither a file nor a package, and how to fix it", async () => {
    const error = await loadPlugins([at("switchyard-plugin-nope")]).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /switchyard-plugin-nope \(from the config file switchyard\.yaml\) is not a file or an installed package.*npm install switchyard-plugin-nope/,
    );
  });
});

describe("defineSkill", () => {
  it("makes a skill from code under the SKILL.md rules", () => {
    const skill = defineSkill({ name: "Triage", description: " Sort bugs. ", body: "# Steps\n" });
    expect(skill).toMatchObject({
      name: "Triage",
      key: "triage",
      description: "Sort bugs.",
      body: "# Steps",
    });
    expect(() => defineSkill({ name: "no spaces", description: "d", body: "b" })).toThrow(
      SkillDefinitionError,
    );
    expect(() => defineSkill({ name: "ok", description: "", body: "b" })).toThrow(/description/);
    expect(() => defineSkill({ name: "ok", description: "d", body: " " })).toThrow(/no body/);
  });
});
