import { createHash } from "node:crypto";
import {
  type ButtonScope,
  SKILL_BUTTON_SCOPES,
  TOOL_BUTTON_SCOPES,
} from "../../core/availability/scopes.ts";
import { LIST_DEFAULT_SCOPE, type ListName } from "../../core/commands/panel.ts";

/**
 * The state of a `/tools` or `/skills` message lives in its components'
 * custom ids (and select option values), so whichever process receives a
 * click can answer it from the click alone: which list, the scope the
 * buttons act on, the page shown, and the item picked.
 *
 * Discord caps a custom id and an option value at 100 characters. Tool ids
 * and skill names fit as they are; anything that would not (or that holds
 * the separator) travels as `#` and a hash of it, which the click handler
 * looks up in the list as it is now: a hash that matches nothing means the
 * list changed under the message, and the person is asked to run the
 * command again rather than switching the wrong thing.
 *
 * @example
 * switchId("tools", "off", "channel", 0, "web_search"); // "tools:off|channel|0|web_search"
 * const parsed = parseListClick("tools:off|channel|0|web_search", []);
 * if (parsed.ok) resolveItem(parsed.click.item, ids); // "web_search"
 */

export type ListKind = ListName;

/** The scopes the buttons can act on; global is changed by typing the command. */
export const UI_SCOPES: Readonly<Record<ListKind, readonly ButtonScope[]>> = {
  tools: TOOL_BUTTON_SCOPES,
  skills: SKILL_BUTTON_SCOPES,
};
export type UiScope = ButtonScope;

/** Where a new list message's buttons act: the command's own default scope. */
export const DEFAULT_UI_SCOPE: Readonly<Record<ListKind, UiScope>> = LIST_DEFAULT_SCOPE;

/** Discord's limit for a custom id and for a select option's value. */
export const CUSTOM_ID_MAX = 100;

/** An item as a click names it: its id, or the hash of an id too long to carry. */
export type ItemRef = { readonly id: string } | { readonly hash: string };

/** A click on a list message, as data. */
export type ListClick =
  /** A page button: show another page of the list. */
  | {
      readonly kind: "page";
      readonly list: ListKind;
      readonly scope: UiScope;
      readonly page: number;
    }
  /** The item select: show why the item is in its state, with on/off buttons. */
  | {
      readonly kind: "pick";
      readonly list: ListKind;
      readonly scope: UiScope;
      readonly page: number;
      readonly item: ItemRef;
    }
  /** An on/off button: switch the item at the scope. */
  | {
      readonly kind: "switch";
      readonly list: ListKind;
      readonly verb: "on" | "off";
      readonly scope: UiScope;
      readonly page: number;
      readonly item: ItemRef;
    }
  /** The scope select: the buttons act on another scope from now on. */
  | {
      readonly kind: "scope";
      readonly list: ListKind;
      readonly scope: UiScope;
      readonly page: number;
      readonly item?: ItemRef;
    };

/** A click that cannot be read: made by another version of the bot, or tampered with. */
export class DiscordClickError extends Error {
  override readonly name = "DiscordClickError";
  constructor(
    readonly customId: string,
    problem: string,
  ) {
    super(`${problem} Run the command again for a fresh message.`);
  }
}

export type ParsedClick =
  | { readonly ok: true; readonly click: ListClick }
  | { readonly ok: false; readonly error: DiscordClickError };

const SEP = "|";
/** What may travel as itself: the characters of tool ids, skill names and availability keys. */
const PLAIN = /^[A-Za-z0-9_.:-]{1,64}$/;
const HASHED = /^#[A-Za-z0-9_-]{16}$/;

/** The item as a custom id or option value carries it. */
export function itemToken(id: string): string {
  return PLAIN.test(id) ? id : `#${hashOf(id)}`;
}

function hashOf(id: string): string {
  return createHash("sha256").update(id).digest("base64url").slice(0, 16);
}

/** Joins the parts, falling back to the item's hash when its id would push past the limit. */
function join(head: string, parts: readonly (string | number)[], item?: string): string {
  const base = [head, ...parts.map(String)].join(SEP);
  if (item === undefined) return base;
  const plain = `${base}${SEP}${itemToken(item)}`;
  return plain.length <= CUSTOM_ID_MAX ? plain : `${base}${SEP}#${hashOf(item)}`;
}

const wholePage = (page: number) => Math.max(0, Math.trunc(page));

export const pickId = (list: ListKind, scope: UiScope, page: number) =>
  join(`${list}:pick`, [scope, wholePage(page)]);

/** The select option's value for an item (its label can be clipped; the value must not be). */
export const optionValue = (id: string) => itemToken(id);

export const switchId = (
  list: ListKind,
  verb: "on" | "off",
  scope: UiScope,
  page: number,
  item: string,
) => join(`${list}:${verb}`, [scope, wholePage(page)], item);

export const scopeId = (list: ListKind, page: number, item?: string) =>
  join(`${list}:scope`, [wholePage(page)], item);

/** `to` is the page the button shows; prev and next never share it, so ids stay unique. */
export const pageId = (list: ListKind, scope: UiScope, to: number) =>
  join(`${list}:page`, [scope, wholePage(to)]);

/** Whether a custom id belongs to a list message of this bot (so the click is ours to answer). */
export function isListClick(customId: string): boolean {
  return /^(tools|skills):/.test(customId);
}

/**
 * Reads a click back: `values` are a select's chosen values (empty for a
 * button). Any input gives a click or a typed error; nothing throws.
 */
export function parseListClick(customId: string, values: readonly string[]): ParsedClick {
  const fail = (problem: string): ParsedClick => ({
    ok: false,
    error: new DiscordClickError(customId, problem),
  });
  const [head = "", ...parts] = customId.split(SEP);
  const match = /^(tools|skills):(pick|on|off|scope|page)$/.exec(head);
  if (!match) {
    return fail(
      `Unknown control ${JSON.stringify(customId.slice(0, 80))}: expected tools: or skills: with pick, on, off, scope or page.`,
    );
  }
  const list = match[1] as ListKind;
  const action = match[2] as "pick" | "on" | "off" | "scope" | "page";
  const scopes: readonly string[] = UI_SCOPES[list];
  const isScope = (s: string | undefined): s is UiScope => s !== undefined && scopes.includes(s);
  const pageOf = (p: string | undefined) =>
    p !== undefined && /^\d{1,9}$/.test(p) ? Number(p) : undefined;
  const refOf = (token: string | undefined): ItemRef | undefined =>
    token === undefined
      ? undefined
      : HASHED.test(token)
        ? { hash: token.slice(1) }
        : PLAIN.test(token)
          ? { id: token }
          : undefined;
  const unreadable = `Unreadable ${list} control ${JSON.stringify(customId.slice(0, 80))}.`;
  switch (action) {
    case "pick": {
      const [scope, page] = parts;
      const number = pageOf(page);
      const item = refOf(values[0]);
      if (parts.length !== 2 || !isScope(scope) || number === undefined || !item) {
        return fail(unreadable);
      }
      return { ok: true, click: { kind: "pick", list, scope, page: number, item } };
    }
    case "on":
    case "off": {
      const [scope, page, token] = parts;
      const number = pageOf(page);
      const item = refOf(token);
      if (parts.length !== 3 || !isScope(scope) || number === undefined || !item) {
        return fail(unreadable);
      }
      return { ok: true, click: { kind: "switch", list, verb: action, scope, page: number, item } };
    }
    case "scope": {
      const [page, token] = parts;
      const number = pageOf(page);
      const scope = values[0];
      const item = refOf(token);
      if (parts.length > 2 || number === undefined || !isScope(scope)) return fail(unreadable);
      if (token !== undefined && !item) return fail(unreadable);
      return {
        ok: true,
        click: { kind: "scope", list, scope, page: number, ...(item ? { item } : {}) },
      };
    }
    case "page": {
      const [scope, page] = parts;
      const number = pageOf(page);
      if (parts.length !== 2 || !isScope(scope) || number === undefined) return fail(unreadable);
      return { ok: true, click: { kind: "page", list, scope, page: number } };
    }
  }
}

/**
 * The id a click names, checked against the list as it is now: a hashed
 * item must match one of `ids`, or the list changed under the message.
 */
export function resolveItem(ref: ItemRef, ids: readonly string[]): string | undefined {
  if ("id" in ref) return ref.id;
  return ids.find((id) => hashOf(id) === ref.hash);
}
