import type { types } from "@slack/bolt";
import {
  type ButtonScope,
  SKILL_BUTTON_SCOPES,
  type SkillButtonScope,
  TOOL_BUTTON_SCOPES,
} from "../../core/availability/scopes.ts";
import {
  type ListName,
  type ListPanel,
  type PanelEntry,
  skillsPanel,
  toolsPanel,
} from "../../core/commands/panel.ts";
import type { SkillListView } from "../../core/commands/skills-view.ts";
import type { ListView } from "../../core/commands/view.ts";
import { escapeMrkdwn } from "./format.ts";

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

/** The scopes the `/tools` buttons can act on (the one scope table's); global is changed by typing the command. */
export const TOOLS_UI_SCOPES = TOOL_BUTTON_SCOPES;
export type ToolsUiScope = ButtonScope;
/** Skills are switched per channel or workspace (they have no conversation scope). */
export const SKILLS_UI_SCOPES = SKILL_BUTTON_SCOPES;
export type SkillsUiScope = SkillButtonScope;

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
const SCOPE_LABEL = (scope: ToolsUiScope): string => `This ${scope}`;

/** "N of M tools available", each tool's state and a switch, the scope picker and pages. */
export function toolsBlocks(
  view: ListView,
  options: ListBlocksOptions<ToolsUiScope>,
): BlockMessage {
  return listBlocks(toolsPanel(view), options);
}

/** "N of M skills available", each skill's state, source and summary, a switch, scope and pages. */
export function skillsBlocks(
  view: SkillListView,
  options: ListBlocksOptions<SkillsUiScope>,
): BlockMessage {
  return listBlocks(skillsPanel(view), options);
}

const UI_SCOPES: Readonly<Record<ListName, readonly ToolsUiScope[]>> = {
  tools: TOOLS_UI_SCOPES,
  skills: SKILLS_UI_SCOPES,
};

/** Any list panel as blocks: the header, the mode, the scope picker, a section per entry, pages. */
export function listBlocks(
  panel: ListPanel,
  options: ListBlocksOptions<ToolsUiScope>,
): BlockMessage {
  const { list: kind, entries } = panel;
  const pageSize = options.pageSize ?? PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 45) {
    throw new RangeError(
      `${kind}Blocks: pageSize must be a whole number from 1 to 45, got ${pageSize}`,
    );
  }
  const pages = Math.max(1, Math.ceil(entries.length / pageSize));
  const page = Math.min(Math.max(0, Math.trunc(options.page ?? 0)), pages - 1);
  const { scope } = options;
  const blocks: types.KnownBlock[] = [
    {
      type: "header",
      text: { type: "plain_text", text: clip(panel.title, HEADER_MAX), emoji: false },
    },
  ];
  if (panel.mode !== undefined) blocks.push(context(`Mode *${panel.mode}*`));
  if (entries.length === 0) blocks.push(section(escapeMrkdwn(panel.empty)));
  else blocks.push(scopePicker(kind, UI_SCOPES[kind], scope, page));
  entries.slice(page * pageSize, (page + 1) * pageSize).forEach((entry, i) => {
    blocks.push(entrySection(entry, `${kind}:toggle:${page * pageSize + i}`, scope, page));
  });
  if (pages > 1) blocks.push(pager(kind, scope, page, pages));
  const paging = pages > 1 ? `Page ${page + 1} of ${pages}. ` : "";
  blocks.push(context(`${paging}${APPLY_NOTE} ${escapeMrkdwn(panel.footer)}`));
  return { text: `${panel.title}. ${APPLY_NOTE}`, blocks };
}

/** An entry's state, where it comes from and its summary, with a button that switches it. */
function entrySection(
  entry: PanelEntry,
  actionId: string,
  scope: ToolsUiScope,
  page: number,
): types.SectionBlock {
  const origin = entry.shadows === "" ? entry.source : `${entry.source}, shadows ${entry.shadows}`;
  const said = [entry.state, origin].filter((part) => part !== "").join(" · ");
  const summary = entry.summary === "" ? "" : `\n${escapeMrkdwn(entry.summary)}`;
  const block = section(`\`${entry.id}\` · ${escapeMrkdwn(said)}${summary}`);
  // The capability floor and the runtime scope are the operator's: no button can move them.
  if (!entry.buttoned) return block;
  const switchTo = entry.on ? "off" : "on";
  block.accessory = {
    type: "button",
    action_id: actionId,
    text: { type: "plain_text", text: switchTo === "on" ? "Turn on" : "Turn off" },
    value: `${entry.id}|${switchTo}|${scope}|${page}`,
    ...(switchTo === "on" ? { style: "primary" as const } : {}),
  };
  return block;
}

function scopePicker(
  kind: string,
  scopes: readonly ToolsUiScope[],
  scope: ToolsUiScope,
  page: number,
): types.SectionBlock {
  const option = (s: ToolsUiScope): types.PlainTextOption => ({
    text: { type: "plain_text", text: SCOPE_LABEL(s) },
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

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
