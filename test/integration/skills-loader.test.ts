import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillFolders } from "../../src/core/config/index.ts";
import type { LoggerPort } from "../../src/core/logger.ts";
import { findSkill, resolveSkills } from "../../src/core/skills/index.ts";
import {
  BUILTIN_SKILLS_DIR,
  loadSkills,
  type SkillLibrary,
  watchSkills,
} from "../../src/runtime/skill-folders.ts";

function recorder(): LoggerPort & { messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message) => messages.push(message) };
}

function skillText(name: string, description = `Does ${name}.`, body = `# ${name}\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

async function writeSkill(folder: string, dir: string, text: string): Promise<string> {
  await mkdir(join(folder, dir), { recursive: true });
  const file = join(folder, dir, "SKILL.md");
  await writeFile(file, text);
  return file;
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the skill folders to change");
    await new Promise((r) => setTimeout(r, 20));
  }
}

let root: string;
let libraries: SkillLibrary[];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "switchyard-skills-"));
  libraries = [];
});

afterEach(async () => {
  for (const library of libraries) library.close();
  await rm(root, { recursive: true, force: true });
});

function folders(global: string[], workspaces: Record<string, string[]> = {}): SkillFolders {
  return { global, workspaces };
}

async function open(f: SkillFolders, logger?: LoggerPort, builtin: string | null = null) {
  const library = await loadSkills(f, { logger, builtin, baseDir: root });
  libraries.push(library);
  return library;
}

describe("loadSkills", () => {
  it("finds each subfolder with a SKILL.md and lists the files beside it", async () => {
    const global = join(root, "global");
    await writeSkill(global, "standup", skillText("standup"));
    await writeFile(join(global, "standup", "template.md"), "x");
    await mkdir(join(global, "standup", "scripts", "deep"), { recursive: true });
    await writeFile(join(global, "standup", "scripts", "deep", "run.sh"), "x");
    await writeFile(join(global, "standup", ".hidden"), "x");
    await mkdir(join(global, "not-a-skill"));
    await writeFile(join(global, "README.md"), "not a skill");

    const library = await open(folders(["global"]));
    const [source] = library.sourcesFor();
    expect(source?.kind).toBe("global");
    expect(source?.skills.map((s) => [s.name, s.origin, s.files])).toEqual([
      ["standup", join(global, "standup"), ["scripts/deep/run.sh", "template.md"]],
    ]);
  });

  it("accepts a folder that is itself one skill", async () => {
    const single = join(root, "single");
    await mkdir(single);
    await writeFile(join(single, "SKILL.md"), skillText("retro"));
    await writeFile(join(single, "notes.md"), "x");
    const library = await open(folders([single]));
    expect(library.sourcesFor()[0]?.skills.map((s) => [s.name, s.files])).toEqual([
      ["retro", ["notes.md"]],
    ]);
  });

  it("ships the built-in skills from the package", async () => {
    const library = await open(folders([]), undefined, BUILTIN_SKILLS_DIR);
    const resolution = resolveSkills(library.sourcesFor());
    expect(resolution.skills.map((s) => [s.key, s.skill.source, s.skill.origin])).toEqual([
      ["bot-guide", "builtin", "built-in"],
      ["meeting-notes", "builtin", "built-in"],
    ]);
  });

  it("skips a broken SKILL.md with one warning naming the file, and loads the rest", async () => {
    const global = join(root, "global");
    const broken = await writeSkill(global, "broken", "---\nname: broken\n---\n");
    await writeSkill(global, "fine", skillText("fine"));
    const log = recorder();
    const library = await open(folders([global]), log);
    await library.reload();
    await library.reload();
    expect(library.sourcesFor()[0]?.skills.map((s) => s.name)).toEqual(["fine"]);
    expect(log.messages).toEqual([
      `Skipping skill ${broken}:2: the frontmatter has no description:. Add one sentence saying what the skill does and when to use it.`,
    ]);
    expect(library.problems()).toEqual(log.messages);
  });

  it("keeps the last good version of a skill while its file is broken", async () => {
    const global = join(root, "global");
    const file = await writeSkill(global, "notes", skillText("notes", "Good."));
    const log = recorder();
    const library = await open(folders([global]), log);
    await writeFile(file, "---\nname: notes\ndescription: [half saved\n");
    await library.reload();
    expect(library.sourcesFor()[0]?.skills.map((s) => s.description)).toEqual(["Good."]);
    expect(log.messages[0]).toContain("Keeping the version read before until it is fixed.");
  });

  it("warns about a missing folder once and reads it when it appears", async () => {
    const later = join(root, "later");
    const log = recorder();
    const library = await open(folders([later]), log);
    await library.reload();
    expect(log.messages).toEqual([
      `Skill folder ${later} does not exist; it has no skills until that changes. It is named under skill_folders: in the config.`,
    ]);
    await writeSkill(later, "x", skillText("x"));
    expect(await library.reload()).toBe(true);
    expect(library.sourcesFor()[0]?.skills.map((s) => s.name)).toEqual(["x"]);
  });

  it("resolves relative folders against the base folder, and gives each workspace its own", async () => {
    await writeSkill(join(root, "shared"), "notes", skillText("notes", "Shared."));
    await writeSkill(join(root, "acme"), "notes", skillText("Notes", "Acme's."));
    const library = await open(folders(["shared"], { "slack:T1": ["acme"] }));
    const acme = resolveSkills(library.sourcesFor({ platform: "slack", workspace: "T1" }));
    expect(findSkill(acme, "NOTES")?.skill.description).toBe("Acme's.");
    expect(findSkill(acme, "notes")?.shadowed.map((s) => s.source)).toEqual(["global"]);
    const other = resolveSkills(library.sourcesFor({ platform: "slack", workspace: "T2" }));
    expect(findSkill(other, "notes")?.skill.description).toBe("Shared.");
  });

  it("restores a shadowed skill when the deeper one is deleted", async () => {
    const ws = join(root, "ws");
    await writeSkill(ws, "meeting-notes", skillText("meeting-notes", "Ours."));
    const library = await loadSkills(folders([], { "console:local": [ws] }), { baseDir: root });
    libraries.push(library);
    const here = () =>
      findSkill(resolveSkills(library.sourcesFor("console:local")), "meeting-notes")?.skill;
    expect(here()?.source).toBe("workspace");
    await rm(join(ws, "meeting-notes"), { recursive: true });
    expect(await library.reload()).toBe(true);
    expect(here()?.source).toBe("builtin");
  });
});

describe("watchSkills", () => {
  it("picks up a new skill without a restart", async () => {
    const global = join(root, "global");
    await mkdir(global);
    let changes = 0;
    // Polling too slow to matter: the change must come through fs.watch.
    const library = await watchSkills(folders([global]), () => changes++, {
      builtin: null,
      debounceMs: 20,
      pollMs: 60_000,
    });
    libraries.push(library);
    expect(library.sourcesFor()[0]?.skills).toEqual([]);
    await writeSkill(global, "standup", skillText("standup"));
    await until(() => (library.sourcesFor()[0]?.skills.length ?? 0) === 1);
    expect(changes).toBeGreaterThanOrEqual(1);
  });

  it("polls a folder that cannot be watched yet", async () => {
    const later = join(root, "later");
    const library = await watchSkills(folders([later]), () => {}, {
      builtin: null,
      debounceMs: 20,
      pollMs: 50,
    });
    libraries.push(library);
    await writeSkill(later, "retro", skillText("retro"));
    await until(() => library.sourcesFor()[0]?.skills[0]?.name === "retro");
  });

  it("keeps following a folder that is deleted and created again", async () => {
    const global = join(root, "global");
    await writeSkill(global, "a", skillText("a"));
    const library = await watchSkills(folders([global]), () => {}, {
      builtin: null,
      debounceMs: 20,
      pollMs: 50,
    });
    libraries.push(library);
    await rm(global, { recursive: true });
    await until(() => library.sourcesFor()[0]?.skills.length === 0);
    await writeSkill(global, "b", skillText("b"));
    await until(() => library.sourcesFor()[0]?.skills[0]?.name === "b");
  });

  it("follows new folders when the config changes", async () => {
    const library = await open(folders([]));
    await writeSkill(join(root, "added"), "x", skillText("x"));
    expect(await library.setFolders(folders(["added"]))).toBe(true);
    expect(library.sourcesFor()[0]?.skills.map((s) => s.name)).toEqual(["x"]);
  });
});
