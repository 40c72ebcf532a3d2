import { type FSWatcher, watch } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SkillFolders } from "../core/config/index.ts";
import { type LoggerPort, silentLogger } from "../core/logger.ts";
import {
  INLINE_ORIGIN,
  type Skill,
  type SkillSource,
  type SkillSourceKind,
} from "../core/skills/index.ts";
import { type Folder, SkillFolderReader, sourceId } from "./skill-folder-reader.ts";

/** The skills shipped with the package: `skills/` at its root. */
export const BUILTIN_SKILLS_DIR = fileURLToPath(new URL("../../skills", import.meta.url));

export interface SkillLibraryOptions {
  readonly logger?: LoggerPort;
  /** Relative folders resolve against this (the config file's folder); default the working directory. */
  readonly baseDir?: string;
  /** The built-in skills folder; `null` ships none. Default {@link BUILTIN_SKILLS_DIR}. */
  readonly builtin?: string | null;
  /** Quiet time after a change before the folders are re-read. */
  readonly debounceMs?: number;
  /** How often a folder that cannot be watched is re-read. */
  readonly pollMs?: number;
  /** Skills from code (`defineSkill`): after the built-ins, before the global folders. */
  readonly inline?: readonly Skill[];
}

/** Where a workspace's skills are looked up: `slack:T0123`. */
export function workspaceKey(address: { readonly platform: string; readonly workspace: string }) {
  return `${address.platform}:${address.workspace}`;
}

/**
 * The skill folders of the process, read into memory: built-ins, the global
 * folders and each workspace's. A worker asks {@link sourcesFor} every turn
 * (no I/O) and hands the result to `resolveSkills`.
 *
 * A folder holds one skill folder per subfolder with a SKILL.md, or is itself
 * one skill when it has a SKILL.md directly. A SKILL.md that cannot be read
 * is skipped with one warning naming the file (one per breakage, not one per
 * re-read); if it was good before, the last good version stays until the
 * file is fixed or deleted, so a half-saved edit never swaps skills around.
 *
 * @example
 * const skills = await watchSkills(config.skillFolders, () => log.info("skills changed"), { logger });
 * const resolution = resolveSkills(skills.sourcesFor(address), toggles, { warnings });
 */
export class SkillLibrary {
  #folders: Folder[];
  #workspaces: ReadonlyMap<string, Folder[]>;
  #read = new Map<string, SkillSource>();
  readonly #reader: SkillFolderReader;
  #signature = "";
  #pending: Promise<boolean> | undefined;
  #again = false;
  readonly #logger: LoggerPort;
  readonly #options: SkillLibraryOptions;
  /** Folder path -> its watcher. */
  #watchers = new Map<string, FSWatcher>();
  #timers: NodeJS.Timeout[] = [];
  #debounce: NodeJS.Timeout | undefined;
  #onChange: ((library: SkillLibrary) => void) | undefined;

  constructor(folders: SkillFolders, options: SkillLibraryOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#reader = new SkillFolderReader(this.#logger);
    const { all, workspaces } = this.#place(folders);
    this.#folders = all;
    this.#workspaces = workspaces;
  }

  /**
   * The sources for one workspace, shallow to deep: built-ins, global folders
   * in config order, then the workspace's folders. No I/O.
   */
  sourcesFor(
    workspace?: string | { readonly platform: string; readonly workspace: string },
  ): SkillSource[] {
    const key = typeof workspace === "object" ? workspaceKey(workspace) : workspace;
    const folders = this.#folders.filter((f) => f.kind !== "workspace");
    if (key !== undefined) folders.push(...(this.#workspaces.get(key) ?? []));
    const sources = folders.flatMap((f) => {
      const source = this.#read.get(sourceId(f));
      return source === undefined ? [] : [source];
    });
    const inline = this.#options.inline ?? [];
    if (inline.length > 0) {
      const at = sources.findIndex((source) => source.kind !== "builtin");
      sources.splice(at < 0 ? sources.length : at, 0, {
        kind: "global",
        origin: INLINE_ORIGIN,
        skills: inline,
      });
    }
    return sources;
  }

  /** The messages of the SKILL.md files and folders that cannot be read now. */
  problems(): string[] {
    return this.#reader.problems();
  }

  /**
   * Re-reads every folder. Resolves to whether any skill changed. Calls made
   * while a read runs share one more read after it, so the last call always
   * sees the files as they are when it was made.
   */
  reload(): Promise<boolean> {
    if (this.#pending !== undefined) {
      this.#again = true;
      return this.#pending;
    }
    const run = async (): Promise<boolean> => {
      let changed = false;
      do {
        this.#again = false;
        changed = (await this.#readAll()) || changed;
      } while (this.#again);
      // Whatever asked for the read (a watcher, /skills reload, a config change), watchers hear of it.
      if (changed) this.#onChange?.(this);
      return changed;
    };
    this.#pending = run().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Points the library at other folders (the config changed) and re-reads. */
  async setFolders(folders: SkillFolders): Promise<boolean> {
    const { all, workspaces } = this.#place(folders);
    this.#folders = all;
    this.#workspaces = workspaces;
    if (this.#onChange !== undefined) this.#rewatch();
    return this.reload();
  }

  /**
   * Re-reads the folders when they change: `fs.watch` with a debounce, or
   * polling for a folder that cannot be watched (missing yet, or a file
   * system without change events). `onChange` runs after every re-read
   * that changed a skill, whatever started it.
   */
  watch(onChange: (library: SkillLibrary) => void): void {
    this.#onChange = onChange;
    this.#rewatch();
  }

  close(): void {
    this.#onChange = undefined;
    this.#unwatch();
  }

  #rewatch(): void {
    this.#unwatch();
    const pollMs = this.#options.pollMs ?? 2000;
    for (const folder of this.#folders) {
      if (folder.kind === "builtin" || this.#watchers.has(folder.path)) continue;
      try {
        const watcher = watch(folder.path, { recursive: true, persistent: false }, () =>
          this.#changed(),
        );
        watcher.on("error", () => this.#unwatchFolder(folder.path));
        this.#watchers.set(folder.path, watcher);
      } catch {
        this.#poll(pollMs);
      }
    }
  }

  /** A folder that was deleted (or whose watcher failed) is polled from then on. */
  #unwatchFolder(path: string): void {
    this.#watchers.get(path)?.close();
    this.#watchers.delete(path);
    this.#poll(this.#options.pollMs ?? 2000);
  }

  #poll(ms: number): void {
    // One timer re-reads everything; more would only repeat the same read.
    if (this.#timers.length > 0) return;
    const timer = setInterval(() => this.#changed(0), ms);
    timer.unref();
    this.#timers.push(timer);
  }

  #changed(delay = this.#options.debounceMs ?? 100): void {
    if (this.#debounce !== undefined) clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined;
      this.reload().catch((error: unknown) =>
        this.#logger.warn(`Re-reading the skill folders failed: ${error}`),
      );
    }, delay);
    this.#debounce.unref();
  }

  #unwatch(): void {
    for (const watcher of this.#watchers.values()) watcher.close();
    for (const timer of this.#timers) clearInterval(timer);
    if (this.#debounce !== undefined) clearTimeout(this.#debounce);
    this.#watchers = new Map();
    this.#timers = [];
    this.#debounce = undefined;
  }

  #place(folders: SkillFolders): { all: Folder[]; workspaces: Map<string, Folder[]> } {
    const base = this.#options.baseDir ?? process.cwd();
    const at = (kind: SkillSourceKind, named: string): Folder => ({
      kind,
      named,
      path: resolve(base, named.startsWith("~/") ? join(homedir(), named.slice(2)) : named),
    });
    const builtin =
      this.#options.builtin === undefined ? BUILTIN_SKILLS_DIR : this.#options.builtin;
    const all: Folder[] =
      builtin === null ? [] : [{ kind: "builtin", named: builtin, path: builtin }];
    all.push(...folders.global.map((f) => at("global", f)));
    const workspaces = new Map<string, Folder[]>();
    for (const [key, list] of Object.entries(folders.workspaces)) {
      const placed = list.map((f) => at("workspace", f));
      workspaces.set(key, placed);
      all.push(...placed);
    }
    return { all, workspaces };
  }

  async #readAll(): Promise<boolean> {
    const read = await this.#reader.readAll(this.#folders);
    this.#read = read;
    // A watch on a folder that is gone sees nothing when it comes back: poll it instead.
    for (const path of [...this.#watchers.keys()]) {
      if (this.#reader.hasProblem(path)) this.#unwatchFolder(path);
    }
    const signature = JSON.stringify([...read.entries()]);
    const changed = signature !== this.#signature;
    this.#signature = signature;
    return changed;
  }
}

/**
 * Reads the skill folders once; call `reload()` or `watch()` on the result
 * to follow changes.
 *
 * @example
 * const library = await loadSkills({ global: ["./skills"], workspaces: {} }, { inline: [triage] });
 * library.sourcesFor({ platform: "slack", workspace: "T0123" }); // built-ins, inline, ./skills
 */
export async function loadSkills(
  folders: SkillFolders,
  options: SkillLibraryOptions = {},
): Promise<SkillLibrary> {
  const library = new SkillLibrary(folders, options);
  await library.reload();
  return library;
}

/** Reads the skill folders and re-reads them when they change, calling `onChange` after each change. */
export async function watchSkills(
  folders: SkillFolders,
  onChange: (library: SkillLibrary) => void,
  options: SkillLibraryOptions = {},
): Promise<SkillLibrary> {
  const library = await loadSkills(folders, options);
  library.watch(onChange);
  return library;
}
