import type { Dirent } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { LoggerPort } from "../core/logger.ts";
import {
  BUILTIN_ORIGIN,
  parseSkillFile,
  type Skill,
  SkillFileError,
  type SkillSource,
  type SkillSourceKind,
} from "../core/skills/index.ts";

/** A SKILL.md bigger than this is refused: its body goes into the model's context whole. */
const MAX_SKILL_BYTES = 256 * 1024;
/** How many files beside a SKILL.md are listed, and how deep the listing goes. */
const MAX_FILES = 200;
const MAX_DEPTH = 4;
const SKILL_FILE = /^skill\.md$/i;

/** A configured skill folder. */
export interface Folder {
  readonly kind: SkillSourceKind;
  /** As the config names it, for messages. */
  readonly named: string;
  /** Absolute. */
  readonly path: string;
}

/**
 * Reads skill folders into sources, remembering across reads what it needs
 * to be quiet and steady: the last good version of each SKILL.md, and the
 * problem each file or folder has now, so each breakage warns once.
 */
export class SkillFolderReader {
  /** The last good skill per source kind and SKILL.md path. */
  readonly #lastGood = new Map<string, Skill>();
  /** The current problem per file or folder path. */
  readonly #problems = new Map<string, string>();

  constructor(private readonly logger: LoggerPort) {}

  /** Every folder's source, by {@link sourceId}; a folder named twice is read once. */
  async readAll(folders: readonly Folder[]): Promise<Map<string, SkillSource>> {
    const read = new Map<string, SkillSource>();
    const seen = new Set<string>();
    for (const folder of folders) {
      const id = sourceId(folder);
      if (read.has(id)) continue;
      read.set(id, await this.#readFolder(folder, seen));
    }
    // Forget what belongs to files and folders that are gone.
    for (const key of [...this.#lastGood.keys()]) if (!seen.has(key)) this.#lastGood.delete(key);
    for (const key of [...this.#problems.keys()]) if (!seen.has(key)) this.#problems.delete(key);
    return read;
  }

  /** The messages of the SKILL.md files and folders that cannot be read now. */
  problems(): string[] {
    return [...this.#problems.values()];
  }

  hasProblem(path: string): boolean {
    return this.#problems.has(path);
  }

  async #readFolder(folder: Folder, seen: Set<string>): Promise<SkillSource> {
    const origin = folder.kind === "builtin" ? BUILTIN_ORIGIN : folder.path;
    seen.add(folder.path);
    const empty: SkillSource = { kind: folder.kind, origin, skills: [] };
    let entries: string[];
    try {
      entries = (await readdir(folder.path)).sort();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === "ENOENT"
          ? "does not exist"
          : code === "ENOTDIR"
            ? "is a file, not a folder"
            : `cannot be read (${(error as Error).message})`;
      this.#problem(
        folder.path,
        `Skill folder ${folder.named} ${why}; it has no skills until that changes. It is named under skill_folders: in the config.`,
      );
      return empty;
    }
    this.#problems.delete(folder.path);
    const own = entries.includes("SKILL.md") ? "SKILL.md" : entries.find((e) => SKILL_FILE.test(e));
    const dirs: { dir: string; file: string }[] = [];
    if (own !== undefined) {
      dirs.push({ dir: folder.path, file: own });
    } else {
      for (const entry of entries) {
        if (entry.startsWith(".")) continue;
        const dir = join(folder.path, entry);
        const file = await skillFileIn(dir);
        if (file !== undefined) dirs.push({ dir, file });
      }
    }
    const skills: Skill[] = [];
    for (const { dir, file } of dirs) {
      const skill = await this.#readSkill(folder.kind, dir, file, seen);
      if (skill !== undefined) skills.push(skill);
    }
    return { kind: folder.kind, origin, skills };
  }

  async #readSkill(
    kind: SkillSourceKind,
    dir: string,
    name: string,
    seen: Set<string>,
  ): Promise<Skill | undefined> {
    const path = join(dir, name);
    // The same folder may be named twice (globally and for a workspace): remember each reading.
    const id = `${kind}:${path}`;
    seen.add(path);
    seen.add(id);
    const last = this.#lastGood.get(id);
    const keeping = last === undefined ? "" : " Keeping the version read before until it is fixed.";
    let parsed: ReturnType<typeof parseSkillFile>;
    try {
      const info = await stat(path);
      parsed =
        info.size > MAX_SKILL_BYTES
          ? new SkillFileError(
              path,
              undefined,
              `the file is ${info.size} bytes; the limit is ${MAX_SKILL_BYTES}. Its body goes into the model's context whole: move reference material into files beside it.`,
            )
          : parseSkillFile(await readFile(path, "utf8"), path);
    } catch (error) {
      parsed = new SkillFileError(path, undefined, `cannot be read (${(error as Error).message}).`);
    }
    if (parsed instanceof SkillFileError) {
      this.#problem(path, `Skipping skill ${parsed.message}${keeping}`);
      return last;
    }
    this.#problems.delete(path);
    const skill: Skill = {
      ...parsed,
      source: kind,
      origin: kind === "builtin" ? BUILTIN_ORIGIN : dir,
      files: await filesBeside(dir, path),
    };
    this.#lastGood.set(id, skill);
    return skill;
  }

  /** Warns when a file's or folder's problem is new; the same problem on every re-read stays quiet. */
  #problem(path: string, message: string): void {
    if (this.#problems.get(path) === message) return;
    this.#problems.set(path, message);
    this.logger.warn(message, { file: path });
  }
}

export function sourceId(folder: Folder): string {
  return `${folder.kind}:${folder.path}`;
}

/** The SKILL.md of a folder (any case, SKILL.md preferred), or undefined when it is not a skill. */
async function skillFileIn(dir: string): Promise<string | undefined> {
  let entries: string[];
  try {
    if (!(await stat(dir)).isDirectory()) return undefined;
    entries = await readdir(dir);
  } catch {
    return undefined;
  }
  return entries.includes("SKILL.md") ? "SKILL.md" : entries.sort().find((e) => SKILL_FILE.test(e));
}

/** The other files of a skill's folder: relative, "/"-separated, sorted, dot-files skipped. */
async function filesBeside(dir: string, skillFile: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (at: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || files.length >= MAX_FILES) return;
    let entries: Dirent[];
    try {
      entries = await readdir(at, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (files.length >= MAX_FILES) return;
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = join(at, entry.name);
      if (path === skillFile) continue;
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        try {
          isDir = (await stat(path)).isDirectory();
        } catch {
          continue;
        }
      }
      if (isDir) await walk(path, depth + 1);
      else files.push(relative(dir, path).split(sep).join("/"));
    }
  };
  await walk(dir, 0);
  return files.sort();
}
