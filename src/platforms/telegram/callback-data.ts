import { createHash } from "node:crypto";
import {
  type ButtonScope,
  SKILL_BUTTON_SCOPES,
  scopeLetter,
  scopeOfLetter,
  TOOL_BUTTON_SCOPES,
} from "../../core/availability/scopes.ts";

import type { ListName } from "../../core/commands/panel.ts";

/** The lists with buttons: `/tools` and `/skills`. */
export type { ListName };

/** The scopes buttons act on (the one scope table's); global is changed by typing the command (owners only). */
export const TOOLS_UI_SCOPES = TOOL_BUTTON_SCOPES;
/** Skills have no conversation scope. */
export const SKILLS_UI_SCOPES = SKILL_BUTTON_SCOPES;
export type UiScope = ButtonScope;

/** A press on a list message's keyboard, as data. */
export type KeyboardPress =
  /** Show the list again at this scope and page (the scope row, the page buttons). */
  | {
      readonly kind: "view";
      readonly list: ListName;
      readonly scope: UiScope;
      readonly page: number;
    }
  /** Switch one tool or skill at the scope, then show the list again. */
  | {
      readonly kind: "switch";
      readonly list: ListName;
      readonly verb: "on" | "off";
      /** The tool id or skill name. */
      readonly id: string;
      readonly scope: UiScope;
      readonly page: number;
    };

/** Telegram refuses callback_data over 64 bytes. */
export const CALLBACK_DATA_MAX = 64;
export const MAX_PAGE = 9_999;

const LIST_LETTER: Readonly<Record<ListName, string>> = { tools: "t", skills: "s" };
/** `#` is in no tool id or skill name, so a hashed reference never reads as a name. */
const HASHED = "#";

/**
 * Encodes a press into callback_data within Telegram's 64 bytes:
 * `t|v|c|2` (tools, view, conversation scope, page 2) or `s|0|h|0|notes`
 * (skills, switch off, channel scope, page 0, the skill). An id too long
 * to fit is sent as `#` and 10 characters of its SHA-256, looked up again
 * among the live ids when pressed, so a button keeps naming the same tool
 * even after the registry's order changes.
 *
 * @example
 * encodePress({ kind: "switch", list: "tools", verb: "off", id: "web_search", scope: "channel", page: 0 });
 * // "t|0|h|0|web_search"
 */
export function encodePress(press: KeyboardPress): string {
  const page = Math.min(MAX_PAGE, Math.max(0, Math.trunc(press.page)));
  const head = [LIST_LETTER[press.list], "", scopeLetter(press.scope), String(page)];
  if (press.kind === "view") {
    head[1] = "v";
    return head.join("|");
  }
  head[1] = press.verb === "on" ? "1" : "0";
  const prefix = `${head.join("|")}|`;
  const fits =
    Buffer.byteLength(prefix + press.id) <= CALLBACK_DATA_MAX && !press.id.startsWith(HASHED);
  return prefix + (fits ? press.id : shortHash(press.id));
}

/** A press read back, or why it cannot be (made by another bot, or an older version). */
export type DecodedPress =
  | { readonly ok: true; readonly press: KeyboardPress }
  | { readonly ok: false; readonly problem: string };

/**
 * Reads callback_data back. `ids` gives the live tool ids or skill names of
 * a list, to resolve a hashed reference. Any input gives a result; nothing
 * throws.
 */
export function decodePress(data: string, ids: (list: ListName) => Iterable<string>): DecodedPress {
  const fail = (problem: string): DecodedPress => ({
    ok: false,
    problem: `${problem} Send the command again for a fresh list.`,
  });
  const [listLetter, verb, scopeLetterText, pageText, ...rest] = data.split("|");
  const list = (Object.keys(LIST_LETTER) as ListName[]).find((l) => LIST_LETTER[l] === listLetter);
  const named = scopeOfLetter(scopeLetterText);
  const scope = TOOLS_UI_SCOPES.find((s) => s === named);
  if (list === undefined || scope === undefined || !/^\d{1,4}$/.test(pageText ?? "")) {
    return fail("This button is not one this bot made.");
  }
  if (list === "skills" && !SKILLS_UI_SCOPES.some((s) => s === scope)) {
    return fail(`Skills are switched per ${SKILLS_UI_SCOPES.join(" or ")}, not per ${scope}.`);
  }
  const page = Number(pageText);
  if (verb === "v" && rest.length === 0)
    return { ok: true, press: { kind: "view", list, scope, page } };
  if ((verb !== "1" && verb !== "0") || rest.length !== 1 || rest[0] === "") {
    return fail("This button is not one this bot made.");
  }
  const ref = rest[0] as string;
  let id: string | undefined = ref;
  if (ref.startsWith(HASHED)) {
    id = undefined;
    for (const candidate of ids(list)) {
      if (shortHash(candidate) === ref) {
        id = candidate;
        break;
      }
    }
    if (id === undefined)
      return fail(`The ${list === "tools" ? "tool" : "skill"} on this button is gone.`);
  }
  return {
    ok: true,
    press: { kind: "switch", list, verb: verb === "1" ? "on" : "off", id, scope, page },
  };
}

function shortHash(id: string): string {
  return HASHED + createHash("sha256").update(id).digest("base64url").slice(0, 10);
}
