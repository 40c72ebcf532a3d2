import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type MessageActionRowComponentBuilder,
  StringSelectMenuBuilder,
} from "discord.js";
import type { ListView } from "../../core/commands/index.ts";

/** The scopes the buttons can act on; global is changed by typing the command. */
export const UI_SCOPES = ["conversation", "channel", "workspace"] as const;
export type UiScope = (typeof UI_SCOPES)[number];

/** A click on the /tools message, as data: pick a tool, switch it, or pick the scope. */
export type ToolsClick =
  | { readonly kind: "pick"; readonly scope: UiScope; readonly tool: string }
  | {
      readonly kind: "switch";
      readonly verb: "on" | "off";
      readonly tool: string;
      readonly scope: UiScope;
    }
  | { readonly kind: "scope"; readonly tool: string; readonly scope: UiScope };

/** Discord allows 25 options per select and custom ids of 100 characters. */
const MAX_OPTIONS = 25;

/**
 * The /tools message's controls: a select of the tools (the first 25 a
 * person can switch), and once one is picked, on/off buttons and a scope
 * select for it. Custom ids carry all the state, so any worker can handle
 * the click.
 */
export function toolsComponents(
  view: ListView,
  picked?: { readonly tool: string; readonly scope: UiScope },
): ActionRowBuilder<MessageActionRowComponentBuilder>[] {
  const switchable = view.items
    .filter((item) => item.state !== "unavailable")
    .slice(0, MAX_OPTIONS);
  const scope = picked?.scope ?? "conversation";
  const rows: ActionRowBuilder<MessageActionRowComponentBuilder>[] = [];
  if (switchable.length > 0) {
    rows.push(
      new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(
        new StringSelectMenuBuilder()
          .setCustomId(`tools:pick|${scope}`)
          .setPlaceholder("Pick a tool to switch")
          .addOptions(
            switchable.map((item) => ({
              label: item.id.slice(0, 100),
              value: item.id.slice(0, 100),
              description: item.state.slice(0, 100),
              default: item.id === picked?.tool,
            })),
          ),
      ),
    );
  }
  if (picked) {
    rows.push(
      new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(
        new ButtonBuilder()
          .setCustomId(id("on", picked.tool, scope))
          .setLabel(`Turn on (${scope})`)
          .setStyle(ButtonStyle.Success),
        new ButtonBuilder()
          .setCustomId(id("off", picked.tool, scope))
          .setLabel(`Turn off (${scope})`)
          .setStyle(ButtonStyle.Danger),
      ),
      new ActionRowBuilder<MessageActionRowComponentBuilder>().addComponents(
        new StringSelectMenuBuilder()
          .setCustomId(`tools:scope|${picked.tool}`.slice(0, 100))
          .setPlaceholder("Where the buttons apply")
          .addOptions(UI_SCOPES.map((s) => ({ label: s, value: s, default: s === scope }))),
      ),
    );
  }
  return rows;
}

function id(verb: "on" | "off", tool: string, scope: UiScope): string {
  return `tools:${verb}|${tool}|${scope}`.slice(0, 100);
}

/** Reads a click back; anything this bot did not make is `undefined`. */
export function parseToolsClick(
  customId: string,
  values: readonly string[] = [],
): ToolsClick | undefined {
  const [head, ...rest] = customId.split("|");
  const isScope = (s: string | undefined): s is UiScope =>
    (UI_SCOPES as readonly string[]).includes(s ?? "");
  switch (head) {
    case "tools:pick": {
      const [scope] = rest;
      const tool = values[0];
      return isScope(scope) && tool ? { kind: "pick", scope, tool } : undefined;
    }
    case "tools:on":
    case "tools:off": {
      const [tool, scope] = rest;
      return tool && isScope(scope)
        ? { kind: "switch", verb: head === "tools:on" ? "on" : "off", tool, scope }
        : undefined;
    }
    case "tools:scope": {
      const [tool] = rest;
      const scope = values[0];
      return tool && isScope(scope) ? { kind: "scope", tool, scope } : undefined;
    }
    default:
      return undefined;
  }
}
