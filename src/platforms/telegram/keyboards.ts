import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import type { ListView } from "../../core/commands/index.ts";
import { type ListPanel, skillsPanel, toolsPanel } from "../../core/commands/panel.ts";
import type { SkillListView } from "../../core/skills/index.ts";
import type { MessageControl } from "../../ports/outbound.ts";
import {
  encodePress,
  type ListName,
  SKILLS_UI_SCOPES,
  TOOLS_UI_SCOPES,
  type UiScope,
} from "./callback-data.ts";
import { escapeHtml } from "./format.ts";

/** A list message: Telegram HTML and the keyboard under it. */
export interface KeyboardMessage {
  readonly html: string;
  readonly keyboard: InlineKeyboardMarkup;
}

export interface ListKeyboardOptions {
  /** The scope the buttons act on, shown selected. */
  readonly scope: UiScope;
  /** Zero-based; clamped to the pages there are. */
  readonly page?: number;
  /** What the last press did, shown above the list. */
  readonly note?: string;
}

/** Items per page: a page of buttons fits a phone screen, and the text stays far below 4,096. */
export const PAGE_SIZE = 8;
export const APPLY_NOTE = "Changes apply from the next message.";

/**
 * `/tools` as a message with buttons: each tool on the page with its state,
 * a button per tool that switches it at the selected scope (tools the
 * capability floor or the runtime scope decide get none: no button can move
 * them), a row to pick the scope, and page buttons when the tools do not fit
 * on one page. Every button carries what it needs in its callback data, so
 * any process can answer the press.
 */
export function toolsKeyboard(view: ListView, options: ListKeyboardOptions): KeyboardMessage {
  return listKeyboard(toolsPanel(view), options);
}

/** `/skills` as a message with buttons, like {@link toolsKeyboard}; skills switch per channel or workspace. */
export function skillsKeyboard(view: SkillListView, options: ListKeyboardOptions): KeyboardMessage {
  return listKeyboard(skillsPanel(view), options);
}

const UI_SCOPES: Readonly<Record<ListName, readonly UiScope[]>> = {
  tools: TOOLS_UI_SCOPES,
  skills: SKILLS_UI_SCOPES,
};

/** Any list panel as a message with buttons (see {@link toolsKeyboard}). */
export function listKeyboard(panel: ListPanel, options: ListKeyboardOptions): KeyboardMessage {
  const { list, entries } = panel;
  const scopes = UI_SCOPES[list];
  const scope = scopes.includes(options.scope) ? options.scope : (scopes[0] as UiScope);
  const pages = Math.max(1, Math.ceil(entries.length / PAGE_SIZE));
  const page = Math.min(Math.max(0, Math.trunc(options.page ?? 0)), pages - 1);
  const shown = entries.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  const buttons: InlineKeyboardButton[][] = [];
  if (entries.length > 0) {
    buttons.push(scopes.map((s) => viewButton(s === scope ? `● ${s}` : s, list, s, page)));
  }
  for (const entry of shown) {
    if (!entry.buttoned) continue;
    const verb = entry.on ? "off" : "on";
    buttons.push([
      {
        text: `${entry.on ? "Turn off" : "Turn on"} ${entry.id}`,
        callback_data: encodePress({ kind: "switch", list, verb, id: entry.id, scope, page }),
      },
    ]);
  }
  if (pages > 1) buttons.push(pager(list, scope, page, pages));
  const mode = panel.mode === undefined ? "" : ` · Mode <b>${escapeHtml(panel.mode)}</b>.`;
  const lines = [
    ...(options.note ? [`<i>${escapeHtml(options.note)}</i>`, ""] : []),
    `<b>${escapeHtml(panel.title)}</b>${mode}`,
    entries.length === 0
      ? escapeHtml(panel.empty)
      : `The buttons switch ${list} for the <b>${scope}</b> scope.`,
    "",
    ...shown.map(entryHtml),
    "",
    escapeHtml(`${pages > 1 ? `Page ${page + 1} of ${pages}. ` : ""}${APPLY_NOTE} ${panel.footer}`),
  ];
  return { html: lines.join("\n"), keyboard: { inline_keyboard: buttons } };
}

/** An entry with its switch marked: on, off, or out of reach (the capability floor). */
function entryHtml(entry: ListPanel["entries"][number]): string {
  const mark = entry.on ? "✅" : entry.switchable ? "⬜" : "🚫";
  const said = [entry.switchState, entry.source].filter((part) => part !== "").join(" · ");
  const summary = entry.summary === "" ? "" : `\n    ${escapeHtml(entry.summary)}`;
  return `${mark} <code>${escapeHtml(entry.id)}</code> ${escapeHtml(said)}${summary}`;
}

function pager(
  list: ListName,
  scope: UiScope,
  page: number,
  pages: number,
): InlineKeyboardButton[] {
  const nav: InlineKeyboardButton[] = [];
  if (page > 0) nav.push(viewButton("‹ Previous", list, scope, page - 1));
  nav.push(viewButton(`${page + 1} / ${pages}`, list, scope, page));
  if (page < pages - 1) nav.push(viewButton("Next ›", list, scope, page + 1));
  return nav;
}

function viewButton(
  text: string,
  list: ListName,
  scope: UiScope,
  page: number,
): InlineKeyboardButton {
  return { text, callback_data: encodePress({ kind: "view", list, scope, page }) };
}

/** Keys per row under a posted message: two fit a phone screen with their labels whole. */
const CONTROLS_PER_ROW = 2;

/**
 * The buttons under a posted message (an approval request's) as an inline
 * keyboard, two keys a row, each key's callback_data the control's payload
 * exactly as given (at most 64 bytes, which `approvalPayload` keeps to).
 * Undefined without controls: the message gets no keyboard.
 */
export function controlKeyboard(
  controls: readonly MessageControl[],
): InlineKeyboardMarkup | undefined {
  if (controls.length === 0) return undefined;
  const rows: InlineKeyboardButton[][] = [];
  for (let i = 0; i < controls.length; i += CONTROLS_PER_ROW) {
    rows.push(
      controls
        .slice(i, i + CONTROLS_PER_ROW)
        .map((c) => ({ text: c.label, callback_data: c.payload })),
    );
  }
  return { inline_keyboard: rows };
}
