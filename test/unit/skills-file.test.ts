import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSkillFile, SkillFileError } from "../../src/core/skills/index.ts";

const FILE = "skills/notes/SKILL.md";

function errorOf(text: string): SkillFileError {
  const result = parseSkillFile(text, FILE);
  if (!(result instanceof SkillFileError))
    throw new Error(`expected a SkillFileError for:\n${text}`);
  return result;
}

describe("parseSkillFile", () => {
  it("reads name, description and the body after the frontmatter", () => {
    const text =
      "---\nname: Meeting-Notes\ndescription: Notes into decisions.\nlicense: MIT\n---\n\n# Steps\n\n1. Read.\n";
    expect(parseSkillFile(text, FILE)).toEqual({
      name: "Meeting-Notes",
      key: "meeting-notes",
      description: "Notes into decisions.",
      body: "# Steps\n\n1. Read.",
    });
  });

  it("accepts CRLF line ends, a byte order mark and a folded description", () => {
    const text =
      "\uFEFF---\r\nname: notes\r\ndescription: >\r\n  Two\r\n  lines.\r\n---\r\nBody\r\n";
    const doc = parseSkillFile(text, FILE);
    expect(doc).toMatchObject({ name: "notes", description: "Two lines.", body: "Body" });
  });

  it("keeps a --- inside the body as markdown", () => {
    const doc = parseSkillFile("---\nname: a\ndescription: b\n---\nabove\n---\nbelow", FILE);
    expect(doc).toMatchObject({ body: "above\n---\nbelow" });
  });

  it.each([
    ["no frontmatter", "# Just markdown\n", 1, "does not start with YAML frontmatter"],
    ["an unclosed frontmatter", "---\nname: a\ndescription: b\n", 1, "never closed"],
    ["no name", "---\ndescription: b\n---\n", 2, "has no name:"],
    ["no description", "---\nname: a\n---\n", 2, "has no description:"],
    [
      "a name with a space",
      "---\ndescription: b\nname: meeting notes\n---\n",
      3,
      "is not a skill name",
    ],
    ["a numeric name", "---\nname: 2024\ndescription: b\n---\n", 2, "is not text"],
    ["a list description", "---\nname: a\ndescription: [x]\n---\n", 3, "is not a sentence"],
    ["an empty description", "---\nname: a\ndescription: '  '\n---\n", 3, "is not a sentence"],
    [
      "an unquoted colon",
      "---\nname: a\ndescription: Use: this\n---\n",
      3,
      "YAML syntax error in the frontmatter",
    ],
    ["a list frontmatter", "---\n- a\n---\n", 2, "not a map"],
    ["an empty frontmatter", "---\n---\nbody", 2, "is empty, not a map"],
    ["a duplicate key", "---\nname: a\nname: b\ndescription: c\n---\n", 3, "YAML syntax error"],
  ])("names the file, the line and the fix for %s", (_, text, line, problem) => {
    const error = errorOf(text);
    expect(error.file).toBe(FILE);
    expect(error.line).toBe(line);
    expect(error.message).toContain(`${FILE}:${line}: `);
    expect(error.message).toContain(problem);
  });

  it("refuses a description longer than the Agent Skills limit", () => {
    const error = errorOf(`---\nname: a\ndescription: ${"x".repeat(1025)}\n---\n`);
    expect(error.message).toContain("the limit is 1024");
  });

  it("returns a skill or a SkillFileError for any text, and never throws", () => {
    const pieces = fc.constantFrom(
      "---",
      "\n",
      "\r\n",
      "name: ",
      "description: ",
      "notes",
      "Notes Bot",
      ": ",
      "- ",
      "[",
      "]",
      "{",
      "}",
      "&a ",
      "*a",
      "!!binary ",
      '"',
      "'",
      "#",
      "...",
      "\t",
      "  ",
      "é",
      "__proto__",
      "\uFEFF",
    );
    const texts = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join("")),
      fc
        .tuple(fc.string(), fc.string(), fc.string())
        .map(([n, d, b]) => `---\nname: ${n}\ndescription: ${d}\n---\n${b}`),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const result = parseSkillFile(text, FILE);
        if (result instanceof SkillFileError) {
          expect(result.message.startsWith(FILE)).toBe(true);
          if (result.line !== undefined) {
            expect(result.line).toBeGreaterThanOrEqual(1);
            expect(result.line).toBeLessThanOrEqual(text.split(/\r\n|\r|\n/).length);
          }
        } else {
          expect(result.key).toBe(result.name.toLowerCase());
          expect(result.name).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);
          expect(result.description.trim()).not.toBe("");
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("turns pathologically nested frontmatter into a SkillFileError", () => {
    const text = `---\nname: a\ndescription: b\nx: ${"[".repeat(5000)}\n---\n`;
    expect(parseSkillFile(text, FILE)).toBeInstanceOf(SkillFileError);
  });
});
