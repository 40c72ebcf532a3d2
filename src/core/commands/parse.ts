import { isWellFormedKey } from "../availability/keys.ts";
import { CHAT_SCOPES, type ChatScope } from "../availability/scopes.ts";
import { isName, NAME_RULE } from "../config/names.ts";
import { type LoadMode, parseLoadMode, UnknownModeError } from "../loading/modes.ts";
import { TOOL_ID_PATTERN } from "../tools/tool.ts";
import type { CommandError } from "./errors.ts";
import { invalid, missing, parseWith, type ScopedGrammar } from "./grammar.ts";
import {
  COMMON_SYNONYMS,
  type CommonCommands,
  formatCommon,
  readSetting,
  readWhy,
  scopedReaders,
  scopedText,
  type VerbReaders,
} from "./scoped-verbs.ts";
import { TOOLS_VERBS, type ToolsVerb, USAGE } from "./usage.ts";

/**
 * A `/tools` command as data, channel-neutral: the console, a Slack slash
 * command and a Telegram button all end up here.
 *
 * `reset` with no key (`/tools reset`, `/tools reset all`, `/tools reset
 * channel`, `/tools reset all channel`) is `key: null`: it forgets everything
 * at that scope (keys, toolset, mode and, in a conversation, the hand-picked
 * list; discovery loads stay). That includes the `all` master switch, so there
 * is no separate way to reset only the master switch.
 */
export type ToolsCommand =
  | CommonCommands<ToolsVerb, ChatScope, "key">
  /** `on`, but each call waits for a person's approval. */
  | { readonly verb: "ask"; readonly key: string; readonly scope: ChatScope }
  | { readonly verb: "why"; readonly id: string }
  /** `mode: null` is `follow`: the shallower scopes decide the mode again. */
  | { readonly verb: "mode"; readonly mode: LoadMode | null; readonly scope: ChatScope }
  /** `toolset: null` is `follow`. */
  | { readonly verb: "preset"; readonly toolset: string | null; readonly scope: ChatScope }
  /** Conversation scope only; `ids: []` is `pick none`, which returns to the toolset. */
  | { readonly verb: "pick"; readonly ids: readonly string[] };

const TOOLS: ScopedGrammar<ToolsVerb, CommandError, ChatScope> = {
  command: "/tools",
  noun: "tool",
  verbs: TOOLS_VERBS,
  synonyms: {
    ...COMMON_SYNONYMS,
    use: "preset",
    toolset: "preset",
    // `/tools approve x` means ask; /approve alone answers a request.
    approve: "ask",
    approval: "ask",
    confirm: "ask",
    require: "ask",
  },
  usage: USAGE,
  item: parseKey,
  scope: parseScope,
  scopes: CHAT_SCOPES,
};

const SCOPED = scopedReaders<ToolsVerb, CommandError, ChatScope, ToolsCommand>(TOOLS, "key");

const READERS: VerbReaders<ToolsVerb, ToolsCommand> = {
  ...SCOPED,
  // `ask <tool> [scope]` reads like on and off: the verb is the value.
  ask: SCOPED.on,
  why: (args) => ({ verb: "why", id: readWhy(TOOLS, args, toolId) }),
  mode: parseMode,
  preset: parsePreset,
  pick: parsePick,
};

/**
 * Reads the text after `/tools` (the prefix itself is accepted and skipped).
 * Verbs, scopes, `all`, `mcp` and `follow` are read in any case; tool ids and
 * toolset names are kept as written. Anything unreadable is a
 * {@link CommandError}; nothing falls back to a default on a typo.
 *
 * @example
 * parseToolsCommand("off web_search channel");
 * // { verb: "off", key: "web_search", scope: "channel" }
 * parseToolsCommand("ask send_message workspace");
 * // { verb: "ask", key: "send_message", scope: "workspace" }
 * parseToolsCommand("/tools@SwitchyardBot mode pi");
 * // { verb: "mode", mode: "minimal", scope: "conversation" }
 */
export function parseToolsCommand(text: string): ToolsCommand {
  return parseWith(TOOLS, text, READERS, { verb: "list" });
}

/**
 * The canonical text of a command, for buttons, refusals that suggest another
 * scope, and help. `parseToolsCommand(formatToolsCommand(c))` gives back `c`.
 */
export function formatToolsCommand(command: ToolsCommand): string {
  switch (command.verb) {
    case "mode":
      return scopedText(TOOLS, `mode ${command.mode ?? "follow"}`, command.scope);
    case "preset":
      return scopedText(TOOLS, `preset ${command.toolset ?? "follow"}`, command.scope);
    case "pick": {
      if (command.ids.length === 0) return "/tools pick none";
      const last = command.ids[command.ids.length - 1] as string;
      // A lone id spelled like a scope would read as the scope: close with the explicit one.
      const suffix = isChatScope(last.toLowerCase()) ? " conversation" : "";
      return `/tools pick ${command.ids.join(",")}${suffix}`;
    }
    case "why":
      return formatCommon(TOOLS, { verb: "why", item: command.id });
    default:
      return formatCommon(TOOLS, { ...command, item: "key" in command ? command.key : null });
  }
}

function parseMode(args: readonly string[]): ToolsCommand {
  const { value: label, scope } = readSetting(TOOLS, args, "mode", "the mode");
  if (label === null) return { verb: "mode", mode: null, scope };
  try {
    return { verb: "mode", mode: parseLoadMode(label), scope };
  } catch (error) {
    if (!(error instanceof UnknownModeError)) throw error;
    const problem = `${error.message} Or "follow" to use the shallower scope's mode.`;
    throw invalid(TOOLS, label, "mode", problem);
  }
}

function parsePreset(args: readonly string[]): ToolsCommand {
  const { value: name, scope } = readSetting(TOOLS, args, "preset", "the toolset name");
  if (name === null || isName(name)) return { verb: "preset", toolset: name, scope };
  throw invalid(TOOLS, name, "preset", `"${name}" is not a toolset name. Use ${NAME_RULE}`);
}

function parsePick(args: readonly string[]): ToolsCommand {
  const words = [...args];
  const last = words[words.length - 1]?.toLowerCase();
  if (last !== undefined && isChatScope(last)) {
    if (last !== "conversation") {
      const raw = words[words.length - 1] as string;
      throw invalid(
        TOOLS,
        raw,
        "pick",
        `Hand-picking tools works in the conversation scope only, not "${raw}". For the ${last} scope, choose a toolset instead: /tools preset <toolset> ${last}.`,
      );
    }
    words.pop();
  }
  const ids = words.flatMap((word) => word.split(",")).filter((id) => id !== "");
  if (ids.length === 0) throw missing(TOOLS, "pick", "the tools to pick, separated by commas");
  if (ids.some((id) => id.toLowerCase() === "none")) {
    if (ids.length === 1) return { verb: "pick", ids: [] };
    throw invalid(
      TOOLS,
      "none",
      "pick",
      '"none" clears the hand-picked list and cannot be combined with tools',
    );
  }
  for (const id of ids) toolId(id, "pick");
  return { verb: "pick", ids: [...new Set(ids)] };
}

/** A key as the scopes store it: `all` and `mcp` lowercase, `mcp:` prefix lowercase, the rest as written. */
function parseKey(token: string, verb: ToolsVerb): string {
  const lower = token.toLowerCase();
  const key =
    lower === "all" || lower === "mcp"
      ? lower
      : lower.startsWith("mcp:")
        ? `mcp:${token.slice(4)}`
        : token;
  if (isWellFormedKey(key)) return key;
  throw invalid(TOOLS, token, verb, `"${token}" is not a tool id, "mcp", "mcp:<server>" or "all"`);
}

function parseScope(token: string | undefined, verb: ToolsVerb): ChatScope {
  if (token === undefined) return "conversation";
  const lower = token.toLowerCase();
  if (isChatScope(lower)) return lower;
  const problem =
    lower === "runtime"
      ? `Scope "${token}" cannot be changed from chat: the runtime scope is set when the bot starts (--tools or SWITCHYARD_TOOLS). Use conversation, channel, workspace or global`
      : `Unknown scope "${token}". Use conversation, channel, workspace or global`;
  throw invalid(TOOLS, token, verb, problem);
}

function toolId(id: string, verb: ToolsVerb = "why"): string {
  if (TOOL_ID_PATTERN.test(id)) return id;
  throw invalid(TOOLS, id, verb, `"${id}" is not a tool id`);
}

function isChatScope(word: string): word is ChatScope {
  return (CHAT_SCOPES as readonly string[]).includes(word);
}
