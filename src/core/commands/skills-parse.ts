import { SKILL_SCOPES, type SkillScope } from "../skills/resolve.ts";
import { isSkillName, SKILL_NAME_RULE } from "../skills/skill.ts";
import { CommandError } from "./errors.ts";
import { commandPrefix, invalid, parseWith, type ScopedGrammar, WRAPPING } from "./grammar.ts";
import {
  COMMON_SYNONYMS,
  type CommonCommands,
  formatCommon,
  readBare,
  readWhy,
  scopedReaders,
  type VerbReaders,
} from "./scoped-verbs.ts";
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
  | CommonCommands<SkillsVerb, SkillScope, "name">
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

const SKILLS: ScopedGrammar<SkillsVerb, SkillsCommandError, SkillScope> = {
  command: "/skills",
  noun: "skill",
  unknownTail: `To use a skill: ${INVOKE_USAGE}.`,
  verbs: SKILLS_VERBS,
  synonyms: { ...COMMON_SYNONYMS, refresh: "reload", rescan: "reload" },
  usage: SKILLS_USAGE,
  error: (token, verb, usage, problem) => new SkillsCommandError(token, verb, usage, problem),
  item: parseName,
  scope: parseScope,
  scopes: SKILL_SCOPES,
};

const READERS: VerbReaders<SkillsVerb, SkillsCommand> = {
  why: (args) => ({ verb: "why", name: readWhy(SKILLS, args, (name) => parseName(name, "why")) }),
  reload: (args) => readBare(SKILLS, args, "reload") as SkillsCommand,
  ...scopedReaders<SkillsVerb, SkillsCommandError, SkillScope, SkillsCommand>(SKILLS, "name"),
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
  return formatCommon(SKILLS, { ...command, item: "name" in command ? command.name : null });
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
