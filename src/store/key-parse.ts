import { PLATFORM_KEY_KINDS } from "./channel-keys.ts";

/** Which part of the {@link KeyScheme} a key belongs to. */
export type SchemeKeyKind =
  | "conversation"
  | "workspace"
  | "user"
  | "global-scope"
  | "access"
  | "console"
  | "queue"
  | "outbox"
  | "memory"
  | "reminders"
  | "schedules"
  | "hooks"
  | "channel-state"
  | "feedback"
  | "send-pace"
  | (typeof PLATFORM_KEY_KINDS)[number]
  | "legacy-queue";

/** The hash tags KeyScheme places, by how each begins (`{conv:...}`), and what they hold. */
const TAGS: ReadonlyArray<readonly [RegExp, SchemeKeyKind]> = [
  [/^\{conv:[^{}]+\}/, "conversation"],
  [/^\{ws:[^{}]+\}/, "workspace"],
  [/^\{user:[^{}]+\}/, "user"],
  [/^\{scope:global\}/, "global-scope"],
  [/^\{access\}/, "access"],
  [/^\{console:recent\}/, "console"],
  [/^\{q:[^{}]+\}/, "queue"],
  [/^\{outbox\}/, "outbox"],
  [/^\{mem:[^{}]+\}/, "memory"],
  [/^\{rem:[^{}]+\}/, "reminders"],
  [/^\{reminders\}/, "reminders"],
  [/^\{schedules\}/, "schedules"],
  [/^\{hooks\}/, "hooks"],
  [/^\{feedback:[a-z0-9]+\}/, "feedback"],
  [/^\{pace:[^{}]+\}/, "send-pace"],
];

/**
 * What kind of Switchyard key `key` is, or undefined when no method of
 * {@link KeyScheme} under `prefix` builds a key like it: how a test (or an
 * operator) finds a key built by hand.
 *
 * @example
 * schemeKeyKind("sy", "sy:{conv:slack:T1:C1:1}:intent"); // "conversation"
 * schemeKeyKind("sy", "sy:telegram:123:offset"); // "channel-state"
 * schemeKeyKind("sy", "sy:mine:cache"); // undefined
 */
export function schemeKeyKind(prefix: string, key: string): SchemeKeyKind | undefined {
  if (!key.startsWith(`${prefix}:`)) return undefined;
  const rest = key.slice(prefix.length + 1);
  for (const [tag, kind] of TAGS) {
    const found = tag.exec(rest);
    if (!found) continue;
    const after = rest.slice(found[0].length);
    return after === "" || after.startsWith(":") ? kind : undefined;
  }
  if (rest.startsWith("bull:")) return "legacy-queue";
  return channelKeyKind(rest);
}

/** `<platform>:<installation>:event:<id>`, `<platform>:<installation>:offset`, `<platform>:<kind>:...`. */
function channelKeyKind(rest: string): SchemeKeyKind | undefined {
  if (/[{}]/.test(rest)) return undefined;
  const [platform, second, third, ...more] = rest.split(":");
  if (!platform || !second || third === undefined) return undefined;
  const kind = PLATFORM_KEY_KINDS.find((k) => k === second);
  if (kind) return third !== "" ? kind : undefined;
  if (third === "offset" && more.length === 0) return "channel-state";
  if (third === "event" && more.length > 0 && more.join(":") !== "") return "channel-state";
  return undefined;
}
