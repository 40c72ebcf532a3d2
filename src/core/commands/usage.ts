/**
 * The `/tools` grammar as people read it: one usage line per verb. Every
 * parse error quotes the line of the verb it failed on, so the fix is in the
 * message (`Unknown scope "chanel". Use ...: /tools off <tool> [scope]`).
 */
export const TOOLS_VERBS = [
  "list",
  "on",
  "off",
  "ask",
  "reset",
  "why",
  "mode",
  "preset",
  "pick",
  "help",
] as const;
export type ToolsVerb = (typeof TOOLS_VERBS)[number];

export const USAGE: Readonly<Record<ToolsVerb, string>> = {
  ...scopedUsage("/tools", "tool"),
  ask: "/tools ask <tool> [scope]",
  mode: "/tools mode <full|default|minimal|discover|follow> [scope]",
  preset: "/tools preset <toolset|follow> [scope]",
  pick: "/tools pick <tool,tool,...|none>",
};

export const SUMMARY: Readonly<Record<ToolsVerb, string>> = {
  list: "List every tool and its state: resident, deferred, disabled or unavailable, and whether it asks first.",
  on: "Switch a tool on (an explicit on also loads it under a curated mode, and lifts the tool's own ask-first default).",
  off: "Switch a tool off.",
  ask: "Keep a tool on, but each call waits for a person's approval first; the bot sees no difference.",
  reset:
    "Forget a setting so shallower scopes decide again; with no tool, or `all`, reset everything at that scope.",
  why: "Explain which scope or capability decides a tool's state.",
  mode: "Choose how many tools ship full schemas: full, default, minimal (pi), discover (omp); follow undoes it.",
  preset: "Choose a named toolset; follow undoes it.",
  pick: "Hand-pick exactly these tools for this conversation; `none` clears the list.",
  help: "Show this help, or one command's.",
};

export const SCOPE_HELP =
  "Scopes: conversation (the default), channel, workspace, global. <tool> is a tool id, mcp:<server>, mcp (every MCP tool) or all; each takes on, off or ask.";

export const TIMING_HELP =
  "Changes apply from the next message; an answer in progress keeps its tools.";

/** The usage lines of the verbs every scoped command has, for `command` switching `noun`s. */
export function scopedUsage(command: string, noun: string) {
  return {
    list: `${command} [list]`,
    on: `${command} on <${noun}> [scope]`,
    off: `${command} off <${noun}> [scope]`,
    reset: `${command} reset [<${noun}>|all] [scope]`,
    why: `${command} why <${noun}>`,
    help: `${command} help [command]`,
  } as const;
}
