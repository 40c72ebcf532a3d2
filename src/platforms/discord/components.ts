import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type MessageActionRowComponentBuilder,
  StringSelectMenuBuilder,
} from "discord.js";
import type { ListPanel, PanelEntry } from "../../core/commands/panel.ts";
import type { MessageControl } from "../../ports/outbound.ts";
import {
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

/**
 * One row of a list message, whatever the list: the part of a
 * {@link PanelEntry} Discord shows. `switchable` decides whether the select
 * offers it: an unavailable tool is the operator's, not a click's.
 */
export type ListEntry = Pick<PanelEntry, "id" | "state" | "switchable">;

/** A `/tools` or `/skills` list as the Discord message shows it; every {@link ListPanel} is one. */
export type ListSpec = Pick<ListPanel, "list" | "title" | "footer"> & {
  readonly entries: readonly ListEntry[];
};

export type Rows = ActionRowBuilder<MessageActionRowComponentBuilder>[];

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
  const rows: Rows = [];
  const choices = spec.entries
    .slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE)
    .filter((e) => e.switchable);
  if (choices.length > 0) {
    const what = list === "tools" ? "tool" : "skill";
    const placeholder =
      pages > 1 ? `Pick a ${what} (page ${page + 1} of ${pages})` : `Pick a ${what}`;
    rows.push(row(itemSelect(pickId(list, scope, page), placeholder, choices, picked)));
  }
  if (picked !== undefined) {
    rows.push(
      row(
        button(
          switchId(list, "on", scope, page, picked),
          `Turn on (${SCOPE_NAME[scope]})`,
          ButtonStyle.Success,
        ),
        button(
          switchId(list, "off", scope, page, picked),
          `Turn off (${SCOPE_NAME[scope]})`,
          ButtonStyle.Danger,
        ),
      ),
    );
  }
  rows.push(row(scopeSelect(scopeId(list, page, picked), UI_SCOPES[list], scope)));
  if (pages > 1) {
    const pager: ButtonBuilder[] = [];
    if (page > 0)
      pager.push(button(pageId(list, scope, page - 1), "Previous", ButtonStyle.Secondary));
    if (page < pages - 1)
      pager.push(button(pageId(list, scope, page + 1), "Next", ButtonStyle.Secondary));
    rows.push(row(...pager));
  }
  return rows;
}

/** Discord's limits: buttons per action row, rows per message, characters per button label. */
const BUTTONS_PER_ROW = 5;
const MAX_ROWS = 5;
const BUTTON_LABEL_MAX = 80;

const CONTROL_STYLE: Readonly<Record<NonNullable<MessageControl["style"]>, ButtonStyle>> = {
  primary: ButtonStyle.Primary,
  danger: ButtonStyle.Danger,
};

/**
 * The buttons under a posted message (an approval request's), as the
 * message's `components`: action rows of up to five buttons, each custom id
 * the control's payload exactly as given, so any process can read a click
 * from the click alone (interaction-router.ts).
 */
export function controlRows(controls: readonly MessageControl[]): unknown[] {
  const rows: unknown[] = [];
  for (let i = 0; i < controls.length && rows.length < MAX_ROWS; i += BUTTONS_PER_ROW) {
    const buttons = controls
      .slice(i, i + BUTTONS_PER_ROW)
      .map((c) =>
        button(
          c.payload,
          clip(c.label, BUTTON_LABEL_MAX),
          c.style ? CONTROL_STYLE[c.style] : ButtonStyle.Secondary,
        ),
      );
    rows.push(row(...buttons).toJSON());
  }
  return rows;
}

function row(
  ...components: (ButtonBuilder | StringSelectMenuBuilder)[]
): ActionRowBuilder<MessageActionRowComponentBuilder> {
  return new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(...components);
}

function button(customId: string, label: string, style: ButtonStyle): ButtonBuilder {
  return new ButtonBuilder().setCustomId(customId).setLabel(label).setStyle(style);
}

/** The page's items to pick from, the picked one shown selected. */
function itemSelect(
  customId: string,
  placeholder: string,
  choices: readonly ListEntry[],
  picked: string | undefined,
): StringSelectMenuBuilder {
  return new StringSelectMenuBuilder()
    .setCustomId(customId)
    .setPlaceholder(placeholder)
    .addOptions(
      choices.map((e) => ({
        label: clip(e.id, LABEL_MAX),
        value: optionValue(e.id),
        // Discord refuses an empty description; a state is rarely empty, but never send one.
        ...(e.state === "" ? {} : { description: clip(e.state, LABEL_MAX) }),
        default: e.id === picked,
      })),
    );
}

/** Where the on/off buttons apply, the current scope selected. */
function scopeSelect(
  customId: string,
  scopes: readonly UiScope[],
  scope: UiScope,
): StringSelectMenuBuilder {
  return new StringSelectMenuBuilder()
    .setCustomId(customId)
    .setPlaceholder("Where the buttons apply")
    .addOptions(
      scopes.map((s) => ({ label: `This ${SCOPE_NAME[s]}`, value: s, default: s === scope })),
    );
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
