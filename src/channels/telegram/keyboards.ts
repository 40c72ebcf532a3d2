import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import type { ListView, ToolItem } from "../../core/commands/index.ts";
import type { SkillItem, SkillListView } from "../../core/skills/index.ts";
import { isSkillName, sourceLabel } from "../../core/skills/index.ts";
import { TOOL_ID_PATTERN } from "../../core/tools/tool.ts";
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
  return listKeyboard({
    list: "tools",
    title: view.title,
    subtitle: `Mode <b>${escapeHtml(view.mode)}</b>.`,
    rows: view.items.map(toolRow),
    empty: "No tools are registered.",
    scopes: TOOLS_UI_SCOPES,
    footer: view.footer,
    options,
  });
}

/** `/skills` as a message with buttons, like {@link toolsKeyboard}; skills switch per channel or workspace. */
export function skillsKeyboard(view: SkillListView, options: ListKeyboardOptions): KeyboardMessage {
  return listKeyboard({
    list: "skills",
    title: view.title,
    subtitle: "",
    rows: view.items.map(skillRow),
    empty: "No skills found.",
    scopes: SKILLS_UI_SCOPES,
    footer: view.footer,
    options,
  });
}

interface Row {
  readonly id: string;
  /** Telegram HTML. */
  readonly html: string;
  readonly on: boolean;
  /** Whether a button may switch it. */
  readonly switchable: boolean;
}

function toolRow(item: ToolItem): Row {
  const state = {
    resident: item.detail === "" ? "on" : `on (${item.detail})`,
    deferred: `on, deferred (${item.detail})`,
    disabled: `off: disabled by ${item.detail}`,
    unavailable: `unavailable: ${item.detail}`,
  }[item.state];
  const on = item.state === "resident" || item.state === "deferred";
  const fixed = item.state === "unavailable" || item.detail.startsWith("runtime scope");
  return {
    id: item.id,
    html: `${on ? "✅" : item.state === "unavailable" ? "🚫" : "⬜"} <code>${escapeHtml(item.id)}</code> ${escapeHtml(state)}`,
    on,
    switchable: !fixed && TOOL_ID_PATTERN.test(item.id),
  };
}

function skillRow(item: SkillItem): Row {
  const on = item.state === "on";
  const state = on ? "on" : `off: disabled by ${item.detail}`;
  const summary = item.summary === "" ? "" : `\n    ${escapeHtml(item.summary)}`;
  return {
    id: item.name,
    html: `${on ? "✅" : "⬜"} <code>${escapeHtml(item.name)}</code> ${escapeHtml(`${state} · ${sourceLabel(item.source)} skill`)}${summary}`,
    on,
    switchable: isSkillName(item.name),
  };
}

interface ListSpec {
  readonly list: ListName;
  readonly title: string;
  readonly subtitle: string;
  readonly rows: readonly Row[];
  readonly empty: string;
  readonly scopes: readonly UiScope[];
  readonly footer: string;
  readonly options: ListKeyboardOptions;
}

function listKeyboard(spec: ListSpec): KeyboardMessage {
  const { list, rows, options } = spec;
  const scope = spec.scopes.includes(options.scope) ? options.scope : (spec.scopes[0] as UiScope);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const page = Math.min(Math.max(0, Math.trunc(options.page ?? 0)), pages - 1);
  const shown = rows.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
  const buttons: InlineKeyboardButton[][] = [];
  if (rows.length > 0) {
    buttons.push(
      spec.scopes.map((s) => ({
        text: s === scope ? `● ${s}` : s,
        callback_data: encodePress({ kind: "view", list, scope: s, page }),
      })),
    );
  }
  for (const row of shown) {
    if (!row.switchable) continue;
    const verb = row.on ? "off" : "on";
    buttons.push([
      {
        text: `${row.on ? "Turn off" : "Turn on"} ${row.id}`,
        callback_data: encodePress({ kind: "switch", list, verb, id: row.id, scope, page }),
      },
    ]);
  }
  if (pages > 1) {
    const nav: InlineKeyboardButton[] = [];
    if (page > 0) nav.push(viewButton("‹ Previous", list, scope, page - 1));
    nav.push(viewButton(`${page + 1} / ${pages}`, list, scope, page));
    if (page < pages - 1) nav.push(viewButton("Next ›", list, scope, page + 1));
    buttons.push(nav);
  }
  const lines = [
    ...(options.note ? [`<i>${escapeHtml(options.note)}</i>`, ""] : []),
    `<b>${escapeHtml(spec.title)}</b>${spec.subtitle === "" ? "" : ` · ${spec.subtitle}`}`,
    rows.length === 0
      ? escapeHtml(spec.empty)
      : `The buttons switch ${list} for the <b>${scope}</b> scope.`,
    "",
    ...shown.map((row) => row.html),
    "",
    escapeHtml(`${pages > 1 ? `Page ${page + 1} of ${pages}. ` : ""}${APPLY_NOTE} ${spec.footer}`),
  ];
  return { html: lines.join("\n"), keyboard: { inline_keyboard: buttons } };
}

function viewButton(
  text: string,
  list: ListName,
  scope: UiScope,
  page: number,
): InlineKeyboardButton {
  return { text, callback_data: encodePress({ kind: "view", list, scope, page }) };
}
