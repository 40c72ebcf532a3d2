import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/core/budget/estimate.ts";
import {
  parseSkillFile,
  SKILLS_BLOCK_HEADER,
  type SkillDocument,
  SkillFileError,
  skillSummary,
  skillsBlock,
  skillsBlockCost,
} from "../../src/core/skills/index.ts";

const BUILTIN_DIR = join(import.meta.dirname, "../../skills");

function builtins(): SkillDocument[] {
  return readdirSync(BUILTIN_DIR).map((name) => {
    const file = join(BUILTIN_DIR, name, "SKILL.md");
    const doc = parseSkillFile(readFileSync(file, "utf8"), file);
    if (doc instanceof SkillFileError) throw doc;
    return doc;
  });
}

describe("skillsBlock", () => {
  it("lists each skill on one line, sorted by key, under a fixed header", () => {
    const block = skillsBlock([
      { name: "Standup", key: "standup", description: "Run a standup." },
      { name: "bot-guide", key: "bot-guide", description: "How to use\n  this bot." },
    ]);
    expect(block).toBe(
      `${SKILLS_BLOCK_HEADER}\n- bot-guide: How to use this bot.\n- Standup: Run a standup.`,
    );
  });

  it("is empty when no skill is enabled", () => {
    expect(skillsBlock([])).toBe("");
  });

  it("cuts a long description to one line of at most 100 characters", () => {
    const long = `${"word ".repeat(40)}\nsecond line`;
    const summary = skillSummary(long);
    expect(summary.length).toBeLessThanOrEqual(100);
    expect(summary.endsWith("…")).toBe(true);
    expect(summary).not.toContain("\n");
  });

  it("is byte-identical for the same skills in any order", () => {
    const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,12}$/);
    const line = fc.record({ name, description: fc.string({ maxLength: 150 }) }).map((s) => ({
      ...s,
      key: s.name.toLowerCase(),
    }));
    fc.assert(
      fc.property(
        fc
          .array(line, { maxLength: 12 })
          .chain((skills) =>
            fc.tuple(
              fc.constant(skills),
              fc.shuffledSubarray(skills, { minLength: skills.length }),
            ),
          ),
        ([skills, shuffled]) => {
          const block = skillsBlock(skills);
          expect(skillsBlock(shuffled)).toBe(block);
          // One header line, one line per distinct key, nothing else.
          const keys = new Set(skills.map((s) => s.key));
          expect(block === "" ? 0 : block.split("\n").length - 2).toBe(keys.size);
        },
      ),
    );
  });
});

describe("the built-in skills", () => {
  it("parse, with names and descriptions for the block", () => {
    expect(
      builtins()
        .map((s) => s.name)
        .sort(),
    ).toEqual(["bot-guide", "meeting-notes"]);
    for (const skill of builtins()) {
      expect(skill.body.length).toBeGreaterThan(500);
      expect(skill.description.length).toBeLessThanOrEqual(100);
    }
  });

  it("cost under 30 tokens each on average in the skills block", () => {
    const skills = builtins();
    const cost = skillsBlockCost(skills);
    expect(cost.perSkill).toBeLessThan(30);
    expect(cost.total).toBe(estimateTokens(skillsBlock(skills)));
    for (const skill of skills) {
      expect(estimateTokens(`- ${skill.name}: ${skillSummary(skill.description)}\n`)).toBeLessThan(
        30,
      );
    }
  });

  it("teach the commands a person needs", () => {
    const guide = builtins().find((s) => s.name === "bot-guide")?.body ?? "";
    for (const command of ["/tools", "/skills", "/skill <name>", "/tools why", "/skills on"]) {
      expect(guide).toContain(command);
    }
  });
});
