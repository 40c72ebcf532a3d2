import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type MessageActionRowComponentBuilder,
  StringSelectMenuBuilder,
} from "discord.js";
import type { ListView, ToolItem } from "../../core/commands/index.ts";
import type { SkillItem, SkillListView } from "../../core/skills/index.ts";
import {
  type ListKind,
  optionValue,
  pageId,
  pickId,
  scopeId,
  switchId,
  UI_SCOPES,
  type UiScope,
} from "./custom-id.ts";

/** Discord's limits: options per select, characters per label, value and message. */
export const PAGE_SIZE = 25;
const LABEL_MAX = 100;
const MESSAGE_MAX = 2_000;
/** A state line is clipped so a page of 25 stays readable within one message. */
const STATE_MAX = 60;

/** What Discord people call each scope: a guild is a "server" there. */
const SCOPE_NAME: Readonly<Record<UiScope, string>> = {
  conversation: "conversation",
  channel: "channel",
  workspace: "server",
};

/** One row of a list message, whatever the list. */
export interface ListEntry {
  readonly id: string;
  /** "resident", "disabled by channel scope", "off (disabled by the workspace scope)"… */
  readonly state: string;
  /** Whether the select offers it: an unavailable tool is the operator's, not a click's. */
  readonly switchable: boolean;
}

/** A `/tools` or `/skills` list as the Discord message shows it. */
export interface ListSpec {
  readonly list: ListKind;
  /** "N of M tools available". */
  readonly title: string;
  readonly footer: string;
  readonly entries: readonly ListEntry[];
}

export type Rows = ActionRowBuilder<MessageActionRowComponentBuilder>[];

export function toolEntries(view: ListView): ListEntry[] {
  return view.items.map((item) => ({
    id: item.id,
    state: toolState(item),
    switchable: item.state !== "unavailable",
  }));
}

function toolState(item: ToolItem): string {
  switch (item.state) {
    case "resident":
      return item.detail === "" ? "resident" : `resident (${item.detail})`;
    case "deferred":
      return `deferred (${item.detail})`;
    case "disabled":
      return `disabled by ${item.detail}`;
    case "unavailable":
      return `unavailable: ${item.detail}`;
  }
}

export function skillEntries(view: SkillListView): ListEntry[] {
  return view.items.map((item: SkillItem) => ({
    id: item.name,
    state: item.state === "on" ? "on" : `off (disabled by ${item.detail})`,
    switchable: true,
  }));
}

/** The pages there are, and `page` clamped to them (a list can shrink under an old message). */
export function pageOf(
  entries: readonly ListEntry[],
  page: number,
): { page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(entries.length / PAGE_SIZE));
  return { page: Math.min(Math.max(0, Math.trunc(page)), pages - 1), pages };
}

/** The list page as text: the title, each item of the page with its state, the page, the footer. */
export function listText(spec: ListSpec, at: { scope: UiScope; page: number }): string {
  const { page, pages } = pageOf(spec.entries, at.page);
  const lines = spec.entries
    .slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE)
    .map((e) => `\`${e.id}\` · ${clip(e.state, STATE_MAX)}`);
  const paging = pages > 1 ? [`Page ${page + 1} of ${pages}.`] : [];
  const buttons = `The buttons switch ${spec.list} for this ${SCOPE_NAME[at.scope]}; changes apply from the next message.`;
  return clip([spec.title, ...lines, ...paging, buttons, spec.footer].join("\n"), MESSAGE_MAX);
}

/**
 * The list message's controls: a select of the page's items, on/off buttons
 * once one is picked, a select of the scope they act on, and page buttons
 * when the list is longer than one select holds. Every custom id carries
 * the whole state (see custom-id.ts).
 */
export function listComponents(
  spec: ListSpec,
  at: { scope: UiScope; page: number; picked?: string | undefined },
): Rows {
  const { list } = spec;
  const { page, pages } = pageOf(spec.entries, at.page);
  const { scope, picked } = at;
  const row = () => new ActionRowBuilder<MessageActionRowComponentBuilder>();
  const rows: Rows = [];
  const choices = spec.entries
    .slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE)
    .filter((e) => e.switchable);
  if (choices.length > 0) {
    const what = list === "tools" ? "tool" : "skill";
    rows.push(
      row().addComponents(
        new StringSelectMenuBuilder()
          .setCustomId(pickId(list, scope, page))
          .setPlaceholder(
            pages > 1 ? `Pick a ${what} (page ${page + 1} of ${pages})` : `Pick a ${what}`,
          )
          .addOptions(
            choices.map((e) => ({
              label: clip(e.id, LABEL_MAX),
              value: optionValue(e.id),
              // Discord refuses an empty description; a state is rarely empty, but never send one.
              ...(e.state === "" ? {} : { description: clip(e.state, LABEL_MAX) }),
              default: e.id === picked,
            })),
          ),
      ),
    );
  }
  if (picked !== undefined) {
    rows.push(
      row().addComponents(
        new ButtonBuilder()
          .setCustomId(switchId(list, "on", scope, page, picked))
          .setLabel(`Turn on (${SCOPE_NAME[scope]})`)
          .setStyle(ButtonStyle.Success),
        new ButtonBuilder()
          .setCustomId(switchId(list, "off", scope, page, picked))
          .setLabel(`Turn off (${SCOPE_NAME[scope]})`)
          .setStyle(ButtonStyle.Danger),
      ),
    );
  }
  rows.push(
    row().addComponents(
      new StringSelectMenuBuilder()
        .setCustomId(scopeId(list, page, picked))
        .setPlaceholder("Where the buttons apply")
        .addOptions(
          UI_SCOPES[list].map((s: UiScope) => ({
            label: `This ${SCOPE_NAME[s]}`,
            value: s,
            default: s === scope,
          })),
        ),
    ),
  );
  if (pages > 1) {
    const pager = row();
    if (page > 0) {
      pager.addComponents(
        new ButtonBuilder()
          .setCustomId(pageId(list, scope, page - 1))
          .setLabel("Previous")
          .setStyle(ButtonStyle.Secondary),
      );
    }
    if (page < pages - 1) {
      pager.addComponents(
        new ButtonBuilder()
          .setCustomId(pageId(list, scope, page + 1))
          .setLabel("Next")
          .setStyle(ButtonStyle.Secondary),
      );
    }
    rows.push(pager);
  }
  return rows;
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
