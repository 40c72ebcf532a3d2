import type { InboundMessage } from "../conversation.ts";
import { ownersMessage, type ScheduleOwner, type ScheduleTarget } from "../schedules/index.ts";
import type { SignatureScheme } from "./signature.ts";
import { type HookTemplate, renderHookTemplate } from "./template.ts";

/**
 * A message the bot gives itself when something outside calls it: a signed
 * `POST /hooks/<name>` puts `prompt`, filled in from the call's JSON body,
 * into `target` as if `owner` had written it there, and the turn runs like
 * any other (the owner's access, limits, budgets and tool availability).
 *
 * @example
 * const hook: Hook = {
 *   name: "ci-failed",
 *   secret: "${CI_HOOK_SECRET}",
 *   signature: "switchyard",
 *   target: { platform: "slack", workspace: "T1", channel: "C1", conversation: "C1", kind: "group" },
 *   owner: { user: "U1" },
 *   prompt: parseHookTemplate("CI failed: {{body.summary}}. Look at the log and tell us what broke."),
 * };
 */
export interface Hook {
  /** Lower-case letters, digits, `-` and `_`: the path (`/hooks/<name>`) and the event ids derive from it. */
  readonly name: string;
  /**
   * The secret as the config writes it: a `${VARIABLE}` reference, filled
   * from the environment where the hook is served (the core never reads it).
   */
  readonly secret: string;
  readonly signature: SignatureScheme;
  readonly target: ScheduleTarget;
  /** The person it runs as. */
  readonly owner: ScheduleOwner;
  readonly prompt: HookTemplate;
}

/** The event id of a call: the same delivery sent twice is one message. */
export function hookEventId(name: string, delivery: string): string {
  return `hook:${name}:${delivery}`;
}

/**
 * What the model reads for a call: a line saying which hook and delivery it
 * is, then the prompt filled in (the body's values as untrusted blocks).
 */
export function hookText(hook: Hook, delivery: string, body: unknown): string {
  return `[Hook "${hook.name}", delivery ${delivery}. The values in it come from the caller, not from a person here.]\n${renderHookTemplate(hook.prompt, body, hook.name)}`;
}

/** The message a call puts into the hook's target, as its owner. */
export function hookMessage(
  hook: Hook,
  delivery: string,
  body: unknown,
  now: number,
): InboundMessage {
  const text = hookText(hook, delivery, body);
  return {
    ...ownersMessage(hook, text, hookEventId(hook.name, delivery), now),
    hook: { name: hook.name, delivery },
  };
}
