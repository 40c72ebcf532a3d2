import { SKILL_SCOPES, type SkillScope } from "../skills/resolve.ts";
import { isSkillName, SKILL_NAME_RULE } from "../skills/skill.ts";
import { CommandError } from "./errors.ts";
import {
  commandPrefix,
  invalid,
  parseWith,
  readBare,
  readHelp,
  readReset,
  readSwitch,
  readWhy,
  type ScopedGrammar,
  WRAPPING,
} from "./grammar.ts";
import { INVOKE_USAGE, SKILLS_USAGE, SKILLS_VERBS, type SkillsVerb } from "./skills-usage.ts";

/**
 * A `/skills` or `/skill` command that cannot be read. The message names the
 * offending token and ends with the usage line, so a channel can show it
 * as-is: `Unknown scope "chanel". Use channel, workspace or global: /skills off <skill> [scope]`.
 */
export class SkillsCommandError extends CommandError<SkillsVerb> {
  // The verb is null when the verb itself is unknown, and for `/skill`.
  override readonly name: string = "SkillsCommandError";
}

/**
 * A `/skills` command as data, channel-neutral. Names are kept as written;
 * they resolve case-insensitively when planned. `reset` with `name: null`
 * forgets every skill setting at the scope.
 */
export type SkillsCommand =
  | { readonly verb: "list" }
  | { readonly verb: "help"; readonly topic: SkillsVerb | null }
  | { readonly verb: "on" | "off"; readonly name: string; readonly scope: SkillScope }
  | { readonly verb: "reset"; readonly name: string | null; readonly scope: SkillScope }
  | { readonly verb: "why"; readonly name: string }
  | { readonly verb: "reload" };

/** `/skill meeting-notes summarize the thread`: a skill used for one message. */
export interface SkillInvocation {
  readonly name: string;
  /** The rest of the message, as written (trimmed); may be empty. */
  readonly request: string;
}

/** The scope `on`, `off` and `reset` change when none is named. */
export const DEFAULT_SKILL_SCOPE: SkillScope = "channel";

const INVOKE_PREFIX = commandPrefix("skill");
const SYNONYMS: Readonly<Record<string, SkillsVerb>> = {
  enable: "on",
  disable: "off",
  ls: "list",
  show: "list",
  status: "list",
  explain: "why",
  clear: "reset",
  refresh: "reload",
  rescan: "reload",
};

const SKILLS: ScopedGrammar<SkillsVerb, SkillsCommandError, SkillScope> = {
  command: "/skills",
  noun: "skill",
  verbs: SKILLS_VERBS,
  synonyms: SYNONYMS,
  usage: SKILLS_USAGE,
  unknownTail: `To use a skill: ${INVOKE_USAGE}.`,
  error: (token, verb, usage, problem) => new SkillsCommandError(token, verb, usage, problem),
  item: parseName,
  scope: parseScope,
  isScope: isSkillScope,
};

type Reader = (args: readonly string[], verb: SkillsVerb) => SkillsCommand;

const switchSkill: Reader = (args, verb) => {
  const { item, scope } = readSwitch(SKILLS, args, verb);
  return { verb: verb as "on" | "off", name: item, scope };
};

const READERS: Readonly<Record<SkillsVerb, Reader>> = {
  list: (args) => readBare(SKILLS, args, "list") as SkillsCommand,
  reload: (args) => readBare(SKILLS, args, "reload") as SkillsCommand,
  help: (args) => ({ verb: "help", topic: readHelp(SKILLS, args) }),
  on: switchSkill,
  off: switchSkill,
  reset: (args) => {
    const { item, scope } = readReset(SKILLS, args);
    return { verb: "reset", name: item, scope };
  },
  why: (args) => ({ verb: "why", name: readWhy(SKILLS, args, (name) => parseName(name, "why")) }),
};

/**
 * Reads the text after `/skills` (the prefix itself is accepted and skipped).
 * Verbs and scopes are read in any case; skill names are kept as written.
 * Anything unreadable is a {@link SkillsCommandError}.
 *
 * @example
 * parseSkillsCommand("off meeting-notes workspace");
 * // { verb: "off", name: "meeting-notes", scope: "workspace" }
 * parseSkillsCommand("/skills on bot-guide"); // { verb: "on", name: "bot-guide", scope: "channel" }
 */
export function parseSkillsCommand(text: string): SkillsCommand {
  return parseWith(SKILLS, text, READERS, { verb: "list" });
}

/** The canonical text of a command; `parseSkillsCommand(formatSkillsCommand(c))` gives back `c`. */
export function formatSkillsCommand(command: SkillsCommand): string {
  const scoped = (text: string, scope: SkillScope) =>
    scope === DEFAULT_SKILL_SCOPE ? `/skills ${text}` : `/skills ${text} ${scope}`;
  switch (command.verb) {
    case "list":
    case "reload":
      return `/skills ${command.verb}`;
    case "help":
      return command.topic === null ? "/skills help" : `/skills help ${command.topic}`;
    case "on":
    case "off":
      return scoped(`${command.verb} ${command.name}`, command.scope);
    case "reset":
      // A name spelled like a scope would read as "reset that scope": name the scope explicitly.
      return command.name !== null && isSkillScope(command.name.toLowerCase())
        ? `/skills reset ${command.name} ${command.scope}`
        : scoped(`reset ${command.name ?? "all"}`, command.scope);
    case "why":
      return `/skills why ${command.name}`;
  }
}

/**
 * Reads `/skill <name> [request]`. The request is everything after the name,
 * as written.
 *
 * @example
 * parseSkillInvocation("/skill meeting-notes turn this thread into notes");
 * // { name: "meeting-notes", request: "turn this thread into notes" }
 */
export function parseSkillInvocation(text: string): SkillInvocation {
  const body = text.trim().replace(INVOKE_PREFIX, "").trimStart();
  const match = /^(\S+)\s*([\s\S]*)$/.exec(body);
  if (match === null) {
    throw new SkillsCommandError(null, null, INVOKE_USAGE, "Missing the skill to use");
  }
  const raw = match[1] as string;
  const name = raw.replace(WRAPPING, "");
  if (!isSkillName(name)) {
    throw new SkillsCommandError(
      raw,
      null,
      INVOKE_USAGE,
      `"${raw}" is not a skill name. Use ${SKILL_NAME_RULE}`,
    );
  }
  return { name, request: (match[2] as string).trim() };
}

function parseName(token: string, verb: SkillsVerb): string {
  if (isSkillName(token)) return token;
  const hint = token.startsWith("/") ? ` Write the name without "/", e.g. ${token.slice(1)}.` : "";
  throw invalid(
    SKILLS,
    token,
    verb,
    `"${token}" is not a skill name. Use ${SKILL_NAME_RULE}.${hint}`,
  );
}

function parseScope(token: string | undefined, verb: SkillsVerb): SkillScope {
  if (token === undefined) return DEFAULT_SKILL_SCOPE;
  const lower = token.toLowerCase();
  if (isSkillScope(lower)) return lower;
  let problem: string;
  if (lower === "conversation" || lower === "thread") {
    problem = `Skills have no ${lower} scope: they are switched per channel, workspace or globally. Use channel (the default), workspace or global`;
  } else if (lower === "runtime") {
    problem = `Scope "${token}" is for tools only. Use channel (the default), workspace or global`;
  } else {
    problem = `Unknown scope "${token}". Use channel (the default), workspace or global`;
  }
  throw invalid(SKILLS, token, verb, problem);
}

export function isSkillScope(word: string): word is SkillScope {
  return (SKILL_SCOPES as readonly string[]).includes(word);
}
