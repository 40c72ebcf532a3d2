import { describeValue, where } from "../config/errors.ts";
import { lineOf } from "../config/locate.ts";
import { yaml } from "../yaml.ts";
import { isSkillName, SKILL_NAME_RULE, type SkillDocument, skillKey } from "./skill.ts";

/**
 * A SKILL.md that cannot be used. The message names the file (and line, when
 * known), what is wrong and how to fix it, e.g.
 *
 * ```text
 * skills/notes/SKILL.md:2: name: "meeting notes" is not a skill name. Use 1 to 64 letters, ...
 * ```
 */
export class SkillFileError extends Error {
  override readonly name = "SkillFileError";
  constructor(
    /** The file as the caller named it. */
    readonly file: string,
    /** 1-based line in the file, when known. */
    readonly line: number | undefined,
    /** What is wrong and how to fix it. */
    readonly problem: string,
  ) {
    super(`${where(file, line)}: ${problem}`);
  }
}

/** The Agent Skills limit; the skills block shows only the first hundred characters anyway. */
export const MAX_DESCRIPTION = 1024;
/** Frontmatter is a few lines; anything this big is not a SKILL.md. */
const MAX_FRONTMATTER = 64 * 1024;

const FENCE = /^---[ \t]*$/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/;
const SHAPE =
  'Start the file with a line "---", then name: and description: lines, then "---", then the instructions.';

/**
 * Reads one SKILL.md: YAML frontmatter between `---` lines with `name` and
 * `description`, then the markdown body. Other frontmatter keys (`license`,
 * `allowed-tools`, `metadata`, ...) are allowed and ignored. Never throws:
 * any text is a document or a {@link SkillFileError}.
 *
 * @example
 * parseSkillFile("---\nname: meeting-notes\ndescription: Notes to decisions.\n---\n# Steps\n", "SKILL.md");
 * // { name: "meeting-notes", key: "meeting-notes", description: "Notes to decisions.", body: "# Steps" }
 */
export function parseSkillFile(text: string, file: string): SkillDocument | SkillFileError {
  try {
    return read(text, file);
  } catch (error) {
    if (error instanceof SkillFileError) return error;
    // The YAML parser on hostile input (runaway nesting, say) is the only other source of errors.
    const reason = error instanceof Error ? error.message : String(error);
    return new SkillFileError(file, undefined, `the frontmatter cannot be read (${reason}).`);
  }
}

function read(text: string, file: string): SkillDocument {
  const { front, body } = splitFrontmatter(text, file);
  const { fields, at } = readFrontmatter(front, file);
  const name = readName(fields, at, file);
  const description = readDescription(fields, at, file);
  return { name, key: skillKey(name), description: description.trim(), body };
}

/** The frontmatter's text (the file's line 2 on) and the trimmed body after it. */
function splitFrontmatter(text: string, file: string): { front: string; body: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  if (!FENCE.test(lines[0] ?? "")) {
    throw new SkillFileError(file, 1, `the file does not start with YAML frontmatter. ${SHAPE}`);
  }
  const close = lines.findIndex((line, i) => i > 0 && CLOSE.test(line));
  if (close < 0) {
    throw new SkillFileError(
      file,
      1,
      'the frontmatter opened on line 1 is never closed. End it with a line "---" before the instructions.',
    );
  }
  const front = lines.slice(1, close).join("\n");
  if (front.length > MAX_FRONTMATTER) {
    throw new SkillFileError(
      file,
      2,
      `the frontmatter is ${front.length} characters; a SKILL.md's is a few lines. Is this the right file?`,
    );
  }
  const body = lines
    .slice(close + 1)
    .join("\n")
    .trim();
  return { front, body };
}

/** The file line a frontmatter key is on (2 when it cannot be told). */
type LineOfKey = (key: string) => number;

/** The frontmatter as a map of its keys, and where each key stands in the file. */
function readFrontmatter(
  front: string,
  file: string,
): { fields: Record<string, unknown>; at: LineOfKey } {
  // The frontmatter starts on the file's line 2.
  const fileLine = (line: number | undefined) => (line === undefined ? 2 : line + 1);
  const { LineCounter, parseDocument } = yaml();
  const counter = new LineCounter();
  const doc = parseDocument(front, { lineCounter: counter, logLevel: "error", uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    const reason = (syntax.message.split("\n", 1)[0] ?? "").replace(
      / at line \d+, column \d+:?$/,
      "",
    );
    throw new SkillFileError(
      file,
      fileLine(syntax.linePos?.[0].line),
      `YAML syntax error in the frontmatter: ${reason.replace(/[.:]$/, "")}. Check the indentation, quotes and colons; quote a description that contains ": ".`,
    );
  }
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new SkillFileError(
      file,
      2,
      `the frontmatter is ${data === null || data === undefined ? "empty" : describeValue(data)}, not a map. Write name: and description: lines between the "---" lines.`,
    );
  }
  return {
    fields: data as Record<string, unknown>,
    at: (key) => fileLine(lineOf(doc, counter, [key])),
  };
}

/** The key's value; when it is missing (or null), an error saying how to add it. */
function required(
  fields: Record<string, unknown>,
  key: string,
  file: string,
  howToAdd: string,
): unknown {
  const value = Object.hasOwn(fields, key) ? fields[key] : undefined;
  if (value === undefined || value === null) {
    throw new SkillFileError(file, 2, `the frontmatter has no ${key}:. ${howToAdd}`);
  }
  return value;
}

function readName(fields: Record<string, unknown>, at: LineOfKey, file: string): string {
  const name = required(fields, "name", file, "Add one, e.g. name: meeting-notes.");
  if (typeof name !== "string") {
    throw new SkillFileError(
      file,
      at("name"),
      `name: ${describeValue(name)} is not text. Quote it, e.g. name: "${String(name)}".`,
    );
  }
  if (!isSkillName(name)) {
    throw new SkillFileError(
      file,
      at("name"),
      `name: ${describeValue(name)} is not a skill name. Use ${SKILL_NAME_RULE}, e.g. name: meeting-notes.`,
    );
  }
  return name;
}

function readDescription(fields: Record<string, unknown>, at: LineOfKey, file: string): string {
  const description = required(
    fields,
    "description",
    file,
    "Add one sentence saying what the skill does and when to use it.",
  );
  if (typeof description !== "string" || description.trim() === "") {
    throw new SkillFileError(
      file,
      at("description"),
      `description: ${describeValue(description)} is not a sentence. Say what the skill does and when to use it.`,
    );
  }
  if (description.length > MAX_DESCRIPTION) {
    throw new SkillFileError(
      file,
      at("description"),
      `description: is ${description.length} characters; the limit is ${MAX_DESCRIPTION}. Keep it to a sentence or two and move the rest into the body.`,
    );
  }
  return description;
}
