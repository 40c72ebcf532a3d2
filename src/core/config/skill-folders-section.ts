import { z } from "zod";
import { describeValue } from "./errors.ts";
import { everyKey } from "./key-check.ts";
import { strictMap } from "./section-map.ts";

/**
 * Where skills live besides the built-ins: folders for every workspace, and
 * folders for one workspace (`<platform>:<workspace>`, e.g. `slack:T0123`),
 * deeper than the global ones. Each folder holds skill folders (each with a
 * SKILL.md), or is one. Paths stay as written; the loader resolves relative
 * ones against the config file's folder.
 */
export interface SkillFolders {
  readonly global: readonly string[];
  readonly workspaces: Readonly<Record<string, readonly string[]>>;
}

export const NO_SKILL_FOLDERS: SkillFolders = Object.freeze({
  global: Object.freeze([]) as readonly string[],
  workspaces: Object.freeze({}),
});

/** `slack:T0123`, `discord:81234`, `telegram:-1001234`, `console:local`. */
const WORKSPACE_KEY = /^[a-z][a-z0-9_-]*:\S+$/;

const folder = z
  .string({ error: (iss) => `expected a folder path, found ${describeValue(iss.input)}.` })
  .refine((path) => path.trim() !== "" && !path.includes("\0"), {
    error: (iss) => `${describeValue(iss.input)} is not a folder path.`,
  });

/** A list of folders; one folder may be written without the brackets. */
const folders = z.preprocess(
  (value) => (typeof value === "string" ? [value] : (value ?? [])),
  z.array(folder, {
    error: (iss) =>
      `expected a list of folders, e.g. [./skills, /srv/team-skills], found ${describeValue(iss.input)}.`,
  }),
);

const workspaces = z
  .record(z.string(), folders, {
    error: (iss) =>
      `expected a map of workspaces to folders, e.g. "slack:T0123": [./team-skills], found ${describeValue(iss.input)}.`,
  })
  .superRefine(
    everyKey(
      (key) => WORKSPACE_KEY.test(key),
      'is not a workspace. Write <platform>:<workspace id>, e.g. "slack:T0123" or "discord:81234".',
    ),
  );

const foldersMap = strictMap(
  {
    global: folders.optional(),
    workspaces: z.preprocess((value) => value ?? {}, workspaces).optional(),
  },
  { takes: "skill_folders takes global: and workspaces:.", notAMap: () => undefined },
);

/**
 * `skill_folders: [./skills]` is shorthand for `skill_folders: { global: [./skills] }`.
 *
 * @example
 * skill_folders:
 *   global: [./skills]
 *   workspaces:
 *     "slack:T0123": [./skills-acme]
 */
export const skillFoldersSection = z
  .union([folders, foldersMap], {
    error: (iss) =>
      `expected a list of folders or a map with global: and workspaces:, found ${describeValue(iss.input)}.`,
  })
  .transform((value): SkillFolders => {
    const { global = [], workspaces = {} } = Array.isArray(value) ? { global: value } : value;
    return Object.freeze({
      global: Object.freeze([...global]),
      workspaces: Object.freeze(
        Object.fromEntries(
          Object.entries(workspaces).map(([key, list]) => [key, Object.freeze([...list])]),
        ),
      ),
    });
  });
