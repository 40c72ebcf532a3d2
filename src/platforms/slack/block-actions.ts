import { isSkillName } from "../../core/skills/skill.ts";
import { TOOL_ID_PATTERN } from "../../core/tools/tool.ts";
import {
  SKILLS_ACTION,
  SKILLS_UI_SCOPES,
  type SkillsUiScope,
  TOOLS_ACTION,
  TOOLS_UI_SCOPES,
  type ToolsUiScope,
} from "./blocks.ts";

/**
 * The clicks on the `/tools` and `/skills` messages, read back from their
 * action ids and values. A click carries everything (item, scope, page), so
 * any process can answer it; a value this bot did not make is refused with a
 * typed error, never guessed at.
 */

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

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
