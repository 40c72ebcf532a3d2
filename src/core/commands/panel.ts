import type { LoadMode } from "../loading/modes.ts";
import { isSkillName } from "../skills/skill.ts";
import { TOOL_ID_PATTERN } from "../tools/tool.ts";
import {
  type SkillItem,
  type SkillListView,
  skillShadowsText,
  skillSourceText,
  skillStateText,
} from "./skills-view.ts";
import { asksText, type ListView, type ToolItem, toolStateText } from "./view.ts";

/**
 * A `/tools` or `/skills` list as every platform's list UI shows it (Slack
 * blocks, Telegram keyboards, Discord components): one entry per item with
 * its state worded, whether it is on, and whether a control may switch it.
 * A renderer knows lists only through this, so a new kind of list is one
 * more panel builder here, not one more row function per platform.
 *
 * @example
 * const panel = toolsPanel(listView(contract));
 * panel.entries.filter((e) => e.buttoned).map((e) => `${e.on ? "Turn off" : "Turn on"} ${e.id}`);
 */
export interface ListPanel {
  readonly list: ListName;
  /** What one entry is: "tool", "skill". */
  readonly noun: string;
  /** "N of M tools available". */
  readonly title: string;
  /** The load mode, for the lists that have one. */
  readonly mode: LoadMode | undefined;
  readonly entries: readonly PanelEntry[];
  /** Said instead of the entries when there are none. */
  readonly empty: string;
  readonly footer: string;
}

/** The lists with controls. */
export type ListName = "tools" | "skills";

/** Where a new list message's buttons act: each command's own default scope. */
export const LIST_DEFAULT_SCOPE = { tools: "conversation", skills: "channel" } as const;

export interface PanelEntry {
  readonly id: string;
  /** "resident", "disabled by channel scope", "off (disabled by the workspace scope)". */
  readonly state: string;
  /** The state led by on or off, for lists that mark each switch: "on, deferred (…)", "on, asks first (…)", "off: disabled by …". */
  readonly switchState: string;
  /** Resident, deferred or on. */
  readonly on: boolean;
  /** On, but each call waits for a person's approval (`ask`). */
  readonly asks: boolean;
  /** False behind the capability floor: that is the operator's, no scope can switch it. */
  readonly switchable: boolean;
  /**
   * Whether an on/off button may switch it: switchable, not held by the
   * runtime scope (the operator's too), and a name the grammar reads.
   */
  readonly buttoned: boolean;
  /** Where a skill comes from ("bundled skill"); "" for tools. */
  readonly source: string;
  /** The skills of the same name it hides ("the user skill"); "" for none. */
  readonly shadows: string;
  /** One line about the item; "" for tools. */
  readonly summary: string;
}

/** The `/tools` list as a panel. */
export function toolsPanel(view: ListView): ListPanel {
  return {
    list: "tools",
    noun: "tool",
    title: view.title,
    mode: view.mode,
    entries: view.items.map(toolEntry),
    empty: "No tools are registered.",
    footer: view.footer,
  };
}

/** The `/skills` list as a panel. */
export function skillsPanel(view: SkillListView): ListPanel {
  return {
    list: "skills",
    noun: "skill",
    title: view.title,
    mode: undefined,
    entries: view.items.map(skillEntry),
    empty: "No skills found.",
    footer: view.footer,
  };
}

function toolEntry(item: ToolItem): PanelEntry {
  const on = item.state === "resident" || item.state === "deferred";
  const switchable = item.state !== "unavailable";
  return {
    id: item.id,
    state: toolStateText(item),
    switchState: toolSwitchState(item),
    on,
    asks: item.asks !== undefined,
    switchable,
    buttoned:
      switchable && !item.detail.startsWith("runtime scope") && TOOL_ID_PATTERN.test(item.id),
    source: "",
    shadows: "",
    summary: "",
  };
}

function toolSwitchState(item: ToolItem): string {
  switch (item.state) {
    case "resident":
      return (item.detail === "" ? "on" : `on (${item.detail})`) + asksText(item);
    case "deferred":
      return `on, deferred (${item.detail})${asksText(item)}`;
    case "disabled":
      return `off: disabled by ${item.detail}`;
    case "unavailable":
      return `unavailable: ${item.detail}`;
  }
}

function skillEntry(item: SkillItem): PanelEntry {
  const on = item.state === "on";
  return {
    id: item.name,
    state: skillStateText(item),
    switchState: on ? "on" : `off: disabled by ${item.detail}`,
    on,
    asks: false,
    switchable: true,
    buttoned: isSkillName(item.name),
    source: skillSourceText(item),
    shadows: skillShadowsText(item),
    summary: item.summary,
  };
}
