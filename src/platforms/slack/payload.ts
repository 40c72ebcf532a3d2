/**
 * What a body Slack sent is, read without trusting it: its kind, the team
 * the app is installed in, and the id that stays the same when Slack (or a
 * replay, or a second ingress process) delivers it again. Every function
 * takes any value and answers; none throws.
 */

/** The kinds of Slack payload, classified the way Bolt routes them. */
export type SlackPayloadKind =
  /** An Events API `event_callback`. */
  | "event"
  | "command"
  /** `block_actions`, a legacy `interactive_message`, a `dialog_submission`. */
  | "action"
  /** `block_suggestion`, `dialog_suggestion`: a select asking for its options. */
  | "options"
  /** `view_submission`, `view_closed`. */
  | "view"
  /** `shortcut` (global), `message_action` (on a message). */
  | "shortcut"
  /** Anything else: `app_rate_limited`, `dialog_cancellation`, shapes Slack may add. */
  | "other";

type Fields = Readonly<Record<string, unknown>>;

/** The body's fields, or undefined when it is not a JSON object (null, a number, an array). */
export function fieldsOf(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Fields)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The payload's kind, in the order Bolt's `getTypeAndConversation` tests
 * the fields (so both agree on what a payload is); undefined for a body
 * that is not an object at all.
 */
export function payloadKind(body: unknown): SlackPayloadKind | undefined {
  const b = fieldsOf(body);
  if (!b) return undefined;
  if (b.event !== undefined) return "event";
  if (b.command !== undefined) return "command";
  if (b.name !== undefined || b.type === "block_suggestion") return "options";
  if (b.actions !== undefined || b.type === "dialog_submission") return "action";
  if (b.type === "shortcut" || b.type === "message_action") return "shortcut";
  if (b.type === "view_submission" || b.type === "view_closed") return "view";
  return "other";
}

/**
 * The team the app is installed in, whose conversations and scopes a
 * payload belongs to; never the sender's team. In a Slack Connect channel
 * the sender's team shows in `event.team` and `user_team`, can be the
 * envelope's `team_id` too, and is an interaction's `team`; Slack names the
 * installation in an event's `authorizations[0].team_id` and a view's
 * `app_installed_team_id` (bolt-python reads them the same way). Without
 * either, the installation is the bot's own team (`auth.test`), and only
 * when even that is unknown the payload's team.
 */
export function installationTeam(body: unknown, ownTeam: string): string {
  const b = fieldsOf(body) ?? {};
  const authorization = Array.isArray(b.authorizations) ? fieldsOf(b.authorizations[0]) : undefined;
  return (
    text(authorization?.team_id) ??
    text(fieldsOf(b.view)?.app_installed_team_id) ??
    text(ownTeam) ??
    text(b.team_id) ??
    text(fieldsOf(b.team)?.id) ??
    text(authorization?.enterprise_id) ??
    text(b.enterprise_id) ??
    ""
  );
}

/**
 * A message's id across deliveries: its channel and ts. Slack's retries
 * repeat them, and the `message` and `app_mention` events Slack sends for
 * one mention share them, so all of them are taken once.
 */
export function messageEventId(channel: string, ts: string): string {
  return `message:${channel}:${ts}`;
}

/**
 * A slash command's id across deliveries: its `trigger_id`, which Slack
 * makes for each invocation and repeats when it delivers the same envelope
 * again. A command without one (the legacy shape) has no stable id: two
 * identical ones may well be two invocations, so it is not deduplicated.
 */
export function commandEventId(body: unknown): string | undefined {
  const trigger = text(fieldsOf(body)?.trigger_id);
  return trigger ? `command:${trigger}` : undefined;
}

/**
 * A click's id across deliveries: its `trigger_id`, else the message, the
 * action's `action_ts` and the user, which Slack stamps once per click.
 */
export function actionEventId(body: unknown): string | undefined {
  const b = fieldsOf(body) ?? {};
  const trigger = text(b.trigger_id);
  if (trigger) return `action:${trigger}`;
  const action = Array.isArray(b.actions) ? fieldsOf(b.actions[0]) : undefined;
  const message = text(fieldsOf(b.container)?.message_ts);
  const at = text(action?.action_ts);
  const user = text(fieldsOf(b.user)?.id);
  return message && at && user ? `action:${message}:${at}:${user}` : undefined;
}

/** A slash command's name for a reply: as typed, but short, and never empty. */
export function commandName(body: unknown): string {
  const name = text(fieldsOf(body)?.command) ?? "that command";
  return name.length <= 40 ? name : `${name.slice(0, 39)}…`;
}

/**
 * What a payload nothing here handles is acknowledged with: an unknown
 * slash command learns which ones exist (only its sender sees it), an
 * options request gets no options, anything else an empty 200.
 */
export function unhandledAck(
  kind: SlackPayloadKind,
  body: unknown,
  commands: readonly string[],
): Readonly<Record<string, unknown>> | undefined {
  if (kind === "command") {
    return {
      response_type: "ephemeral",
      text: `I don't know ${commandName(body)}. I answer ${listed(commands)}; in a thread, type !help for the commands.`,
    };
  }
  if (kind === "options") return { options: [] };
  return undefined;
}

/** "/a", "/a and /b", "/a, /b and /c". */
function listed(items: readonly string[]): string {
  return items.length <= 2
    ? items.join(" and ")
    : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
