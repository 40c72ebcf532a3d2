import type { types } from "@slack/bolt";
import type { Tombstone } from "../../core/agent/tombstone.ts";
import { formatToolsCommand } from "../../core/commands/parse.ts";
import type { ListView, ToolItem } from "../../core/commands/view.ts";
import { modeAllowsDiscovery } from "../../core/loading/modes.ts";
import type { SkillItem, SkillListView } from "../../core/skills/command-view.ts";
import { isSkillName, sourceLabel } from "../../core/skills/skill.ts";
import { TOOL_ID_PATTERN } from "../../core/tools/tool.ts";
import { escapeMrkdwn } from "./mrkdwn.ts";

/**
 * Block Kit for `/tools` and `/skills`, and for tombstones and errors.
 *
 * The list messages are interactive: each tool or skill has a button that
 * switches it, a select picks the scope the buttons act on, and long lists
 * page. Every control carries what it needs in its `value` (the scope and the
 * page included), so a click can be answered from the click alone:
 *
 * @example
 * app.action(TOOLS_ACTION, async ({ ack, action, body }) => {
 *   await ack();
 *   const value = action.type === "static_select" ? action.selected_option.value : action.value;
 *   const parsed = parseToolsAction(action.action_id, value ?? "");
 *   if (!parsed.ok) return respond(errorBlocks(parsed.error));
 *   if (parsed.action.kind === "toggle") await apply(parsed.action.command);
 *   await respond({ replace_original: true, ...toolsBlocks(view, parsed.action) });
 * });
 */
export interface BlockMessage {
  /** The notification and fallback text. */
  readonly text: string;
  readonly blocks: types.KnownBlock[];
}

/** The scopes the `/tools` buttons can act on; global is changed by typing the command. */
export const TOOLS_UI_SCOPES = ["conversation", "channel", "workspace"] as const;
export type ToolsUiScope = (typeof TOOLS_UI_SCOPES)[number];
/** Skills are switched per channel or workspace (they have no conversation scope). */
export const SKILLS_UI_SCOPES = ["channel", "workspace"] as const;
export type SkillsUiScope = (typeof SKILLS_UI_SCOPES)[number];

export interface ListBlocksOptions<Scope extends string> {
  /** The scope the buttons act on, shown selected. */
  readonly scope: Scope;
  /** Zero-based; clamped to the pages there are. */
  readonly page?: number;
  /** Items per page, 1 to 45 (a message holds at most 50 blocks). */
  readonly pageSize?: number;
}

/** Matches every action id the tools message uses: register the handler with it. */
export const TOOLS_ACTION = /^tools:(toggle|scope|page)(?::[A-Za-z0-9_-]+)?$/;
export const SKILLS_ACTION = /^skills:(toggle|scope|page)(?::[A-Za-z0-9_-]+)?$/;

export const APPLY_NOTE = "Changes apply from the next message.";
const PAGE_SIZE = 40;
/** A section's text takes at most 3000 characters, a header's 150, a button's 75. */
const SECTION_MAX = 3000;
const HEADER_MAX = 150;
const SCOPE_LABEL: Readonly<Record<ToolsUiScope, string>> = {
  conversation: "This conversation",
  channel: "This channel",
  workspace: "This workspace",
};

/** "N of M tools available", each tool's state and a switch, the scope picker and pages. */
export function toolsBlocks(
  view: ListView,
  options: ListBlocksOptions<ToolsUiScope>,
): BlockMessage {
  return listBlocks({
    kind: "tools",
    title: view.title,
    context: `Mode *${view.mode}*`,
    rows: view.items.map(toolRow),
    empty: "No tools are registered.",
    scopes: TOOLS_UI_SCOPES,
    footer: view.footer,
    options,
  });
}

/** "N of M skills available", each skill's state, source and summary, a switch, scope and pages. */
export function skillsBlocks(
  view: SkillListView,
  options: ListBlocksOptions<SkillsUiScope>,
): BlockMessage {
  return listBlocks({
    kind: "skills",
    title: view.title,
    context: undefined,
    rows: view.items.map(skillRow),
    empty: "No skills found.",
    scopes: SKILLS_UI_SCOPES,
    footer: view.footer,
    options,
  });
}

interface Row {
  readonly id: string;
  /** mrkdwn. */
  readonly text: string;
  /** What the button does, or null when nothing in chat can switch it. */
  readonly switchTo: "on" | "off" | null;
}

function toolRow(item: ToolItem): Row {
  const state = {
    resident: item.detail === "" ? "resident" : `resident (${item.detail})`,
    deferred: `deferred (${item.detail})`,
    disabled: `disabled by ${item.detail}`,
    unavailable: `unavailable: ${item.detail}`,
  }[item.state];
  // The capability floor and the runtime scope are the operator's: no button can move them.
  const fixed = item.state === "unavailable" || item.detail.startsWith("runtime scope");
  return {
    id: item.id,
    text: `\`${item.id}\` · ${escapeMrkdwn(state)}`,
    switchTo:
      fixed || !TOOL_ID_PATTERN.test(item.id) ? null : item.state === "disabled" ? "on" : "off",
  };
}

function skillRow(item: SkillItem): Row {
  const state = item.state === "on" ? "on" : `off (disabled by ${item.detail})`;
  const shadows = item.shadows.map((s) => `the ${sourceLabel(s)} skill`).join(" and ");
  const source = `${sourceLabel(item.source)} skill${shadows === "" ? "" : `, shadows ${shadows}`}`;
  const summary = item.summary === "" ? "" : `\n${escapeMrkdwn(item.summary)}`;
  return {
    id: item.name,
    text: `\`${item.name}\` · ${escapeMrkdwn(`${state} · ${source}`)}${summary}`,
    switchTo: !isSkillName(item.name) ? null : item.state === "on" ? "off" : "on",
  };
}

interface ListSpec<Scope extends string> {
  readonly kind: "tools" | "skills";
  readonly title: string;
  readonly context: string | undefined;
  readonly rows: readonly Row[];
  readonly empty: string;
  readonly scopes: readonly Scope[];
  readonly footer: string;
  readonly options: ListBlocksOptions<Scope>;
}

function listBlocks<Scope extends ToolsUiScope>(spec: ListSpec<Scope>): BlockMessage {
  const { kind, rows, options } = spec;
  const pageSize = options.pageSize ?? PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 45) {
    throw new RangeError(
      `${kind}Blocks: pageSize must be a whole number from 1 to 45, got ${pageSize}`,
    );
  }
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  const page = Math.min(Math.max(0, Math.trunc(options.page ?? 0)), pages - 1);
  const { scope } = options;
  const blocks: types.KnownBlock[] = [
    {
      type: "header",
      text: { type: "plain_text", text: clip(spec.title, HEADER_MAX), emoji: false },
    },
  ];
  if (spec.context !== undefined) blocks.push(context(spec.context));
  if (rows.length === 0) blocks.push(section(escapeMrkdwn(spec.empty)));
  else blocks.push(scopePicker(kind, spec.scopes, scope, page));
  rows.slice(page * pageSize, (page + 1) * pageSize).forEach((row, i) => {
    const index = page * pageSize + i;
    const block = section(row.text);
    if (row.switchTo !== null) {
      block.accessory = {
        type: "button",
        action_id: `${kind}:toggle:${index}`,
        text: { type: "plain_text", text: row.switchTo === "on" ? "Turn on" : "Turn off" },
        value: `${row.id}|${row.switchTo}|${scope}|${page}`,
        ...(row.switchTo === "on" ? { style: "primary" as const } : {}),
      };
    }
    blocks.push(block);
  });
  if (pages > 1) blocks.push(pager(kind, scope, page, pages));
  const paging = pages > 1 ? `Page ${page + 1} of ${pages}. ` : "";
  blocks.push(context(`${paging}${APPLY_NOTE} ${escapeMrkdwn(spec.footer)}`));
  return { text: `${spec.title}. ${APPLY_NOTE}`, blocks };
}

function scopePicker(
  kind: string,
  scopes: readonly ToolsUiScope[],
  scope: ToolsUiScope,
  page: number,
): types.SectionBlock {
  const option = (s: ToolsUiScope): types.PlainTextOption => ({
    text: { type: "plain_text", text: SCOPE_LABEL[s] },
    value: `${s}|${page}`,
  });
  const block = section(`The buttons switch ${kind} for:`);
  block.accessory = {
    type: "static_select",
    action_id: `${kind}:scope`,
    options: scopes.map(option),
    initial_option: option(scope),
  };
  return block;
}

function pager(kind: string, scope: string, page: number, pages: number): types.ActionsBlock {
  const button = (label: string, to: number, id: string): types.Button => ({
    type: "button",
    action_id: `${kind}:page:${id}`,
    text: { type: "plain_text", text: label },
    value: `${scope}|${to}`,
  });
  const elements: types.Button[] = [];
  if (page > 0) elements.push(button("Previous", page - 1, "prev"));
  if (page < pages - 1) elements.push(button("Next", page + 1, "next"));
  return { type: "actions", elements };
}

function section(text: string): types.SectionBlock {
  return { type: "section", text: { type: "mrkdwn", text: clip(text, SECTION_MAX) } };
}

function context(text: string): types.ContextBlock {
  return { type: "context", elements: [{ type: "mrkdwn", text: clip(text, SECTION_MAX) }] };
}

/** A click on the tools message, as data. */
export type ToolsAction =
  | {
      readonly kind: "toggle";
      /** A `/tools on|off <tool> <scope>` command, ready to plan. */
      readonly command: {
        readonly verb: "on" | "off";
        readonly key: string;
        readonly scope: ToolsUiScope;
      };
      readonly page: number;
    }
  /** Show the list again for this scope and page (the scope picker, the page buttons). */
  | { readonly kind: "view"; readonly scope: ToolsUiScope; readonly page: number };

export type SkillsAction =
  | {
      readonly kind: "toggle";
      /** A `/skills on|off <skill> <scope>` command, ready to plan. */
      readonly command: {
        readonly verb: "on" | "off";
        readonly name: string;
        readonly scope: SkillsUiScope;
      };
      readonly page: number;
    }
  | { readonly kind: "view"; readonly scope: SkillsUiScope; readonly page: number };

export type ActionResult<Action> =
  | { readonly ok: true; readonly action: Action }
  | { readonly ok: false; readonly error: SlackActionError };

/** A block action this bot did not make, or made by an older version of it. */
export class SlackActionError extends Error {
  override readonly name = "SlackActionError";
  constructor(
    readonly actionId: string,
    readonly value: string,
    problem: string,
  ) {
    super(`${problem} Run the command again for a fresh message.`);
  }
}

/**
 * Reads a click on the `/tools` message back: `actionId` is the action's
 * `action_id`, `value` the button's `value` or the select's
 * `selected_option.value`. Any input gives a result or a typed error; nothing
 * throws.
 */
export function parseToolsAction(actionId: string, value: string): ActionResult<ToolsAction> {
  return parseAction(
    "tools",
    TOOLS_UI_SCOPES,
    (id) => TOOL_ID_PATTERN.test(id),
    actionId,
    value,
    (id, verb, scope, page) => ({
      kind: "toggle",
      command: { verb, key: id, scope },
      page,
    }),
  );
}

/** Reads a click on the `/skills` message back, like {@link parseToolsAction}. */
export function parseSkillsAction(actionId: string, value: string): ActionResult<SkillsAction> {
  return parseAction(
    "skills",
    SKILLS_UI_SCOPES,
    isSkillName,
    actionId,
    value,
    (name, verb, scope, page) => ({
      kind: "toggle",
      command: { verb, name, scope },
      page,
    }),
  );
}

function parseAction<Scope extends string, Action>(
  kind: "tools" | "skills",
  scopes: readonly Scope[],
  isId: (id: string) => boolean,
  actionId: string,
  value: string,
  toggle: (id: string, verb: "on" | "off", scope: Scope, page: number) => Action,
): ActionResult<Action | { kind: "view"; scope: Scope; page: number }> {
  const fail = (problem: string) => ({
    ok: false as const,
    error: new SlackActionError(actionId, value, problem),
  });
  const action = (kind === "tools" ? TOOLS_ACTION : SKILLS_ACTION).exec(actionId);
  if (action === null) {
    return fail(
      `Unknown action ${quote(actionId)}: expected ${kind}:toggle, ${kind}:scope or ${kind}:page.`,
    );
  }
  const parts = value.split("|");
  const isScope = (s: string | undefined): s is Scope =>
    (scopes as readonly string[]).includes(s ?? "");
  const pageOf = (p: string | undefined) =>
    p !== undefined && /^\d{1,4}$/.test(p) ? Number(p) : undefined;
  if (action[1] === "toggle") {
    const [id = "", verb, scope, page] = parts;
    const number = pageOf(page);
    if (
      parts.length !== 4 ||
      (verb !== "on" && verb !== "off") ||
      !isScope(scope) ||
      number === undefined
    ) {
      return fail(
        `Unreadable ${kind}:toggle value ${quote(value)}: expected "<name>|<on or off>|<scope>|<page>", the scope one of ${scopes.join(", ")}.`,
      );
    }
    if (!isId(id))
      return fail(`${quote(id)} is not a ${kind === "tools" ? "tool id" : "skill name"}.`);
    return { ok: true, action: toggle(id, verb, scope, number) };
  }
  const [scope, page] = parts;
  const number = pageOf(page);
  if (parts.length !== 2 || !isScope(scope) || number === undefined) {
    return fail(
      `Unreadable ${kind}:${action[1]} value ${quote(value)}: expected "<scope>|<page>", the scope one of ${scopes.join(", ")}.`,
    );
  }
  return { ok: true, action: { kind: "view", scope, page: number } };
}

/** A bit of foreign input for a message: quoted, and short. */
function quote(text: string): string {
  return JSON.stringify(clip(text, 80));
}

/** A plain sentence in a context block: what people see where a tool call could not run. */
export function tombstoneBlocks(tombstone: Tombstone): BlockMessage {
  return sentenceBlocks(tombstoneSentence(tombstone));
}

function tombstoneSentence(t: Tombstone): string {
  switch (t.kind) {
    case "unknown":
      return `The bot tried to use a tool named "${t.id}", which it does not have.`;
    case "absent":
      return `The bot could not use ${t.id}: ${t.reason}. Only the bot's operator can make it available.`;
    case "deferred":
      return modeAllowsDiscovery(t.mode)
        ? `The bot called ${t.id} before loading it; it loads with tool_search.`
        : `The bot could not use ${t.id}: it is not loaded in ${t.mode} mode. Load it with /tools on ${t.id}, or switch mode with /tools mode discover.`;
    case "disabled": {
      const { by } = t;
      if (by.kind === "scope" && by.scope === "runtime") {
        return `The bot could not use ${t.id}: the bot's operator turned it off at startup (${by.key}=off), and only they can turn it back on.`;
      }
      const why =
        by.kind === "scope"
          ? `it is switched off in the ${by.scope} scope${by.key === t.id ? "" : ` (${by.key}=off)`}`
          : by.kind === "toolset"
            ? `it is not in the ${by.toolset} toolset`
            : "it is not in this conversation's hand-picked list";
      // The conversation scope is the deepest a person can set, so it overrides any other.
      const command = formatToolsCommand({ verb: "on", key: t.id, scope: "conversation" });
      return `The bot could not use ${t.id}: ${why}. Turn it on here with ${command}.`;
    }
  }
}

/**
 * An error as a plain sentence, never raw JSON or a stack: a command error
 * as it stands (it already says how to fix it), anything else as "Something
 * went wrong: …" with the message, or the message inside a JSON body.
 */
export function errorBlocks(error: unknown): BlockMessage {
  return sentenceBlocks(errorSentence(error));
}

function errorSentence(error: unknown): string {
  if (typeof error === "string") return error.trim() === "" ? "Something went wrong." : error;
  if (!(error instanceof Error)) return "Something went wrong.";
  if (["CommandError", "SkillsCommandError", "SlackActionError"].includes(error.name)) {
    return error.message;
  }
  const message = readableMessage(error.message);
  if (message === "") return "Something went wrong.";
  return `Something went wrong: ${message}${/[.!?]$/.test(message) ? "" : "."}`;
}

/** The message itself, or the `error.message`/`message` inside a JSON body it quotes. */
function readableMessage(message: string): string {
  const json = /\{[\s\S]*\}/.exec(message);
  if (json !== null) {
    try {
      const body = JSON.parse(json[0]) as { error?: { message?: unknown }; message?: unknown };
      const inner = body.error?.message ?? body.message;
      if (typeof inner === "string" && inner.trim() !== "") {
        return `${message.slice(0, json.index).trim()} ${inner}`.trim();
      }
    } catch {
      // Not JSON after all: the message as it is.
    }
  }
  return message.split("\n")[0]?.trim() ?? "";
}

function sentenceBlocks(sentence: string): BlockMessage {
  const text = clip(sentence.replace(/\s+/g, " ").trim(), SECTION_MAX);
  return {
    text,
    blocks: [{ type: "context", elements: [{ type: "plain_text", text, emoji: false }] }],
  };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
