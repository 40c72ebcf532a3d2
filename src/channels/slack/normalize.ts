import type { Attachment, InboundMessage } from "../../core/agent/inbound.ts";

/** One conversation per thread (default) or per channel. */
export type SessionScope = "thread" | "channel";

/** The fields of a Slack message or app_mention event that Switchyard reads. */
export interface SlackMessageEvent {
  readonly type: string;
  readonly subtype?: string;
  readonly channel?: string;
  readonly channel_type?: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly text?: string;
  readonly ts?: string;
  readonly thread_ts?: string;
  readonly team?: string;
  readonly files?: readonly {
    id: string;
    name?: string;
    mimetype?: string;
    size?: number;
  }[];
}

export interface NormalizeOptions {
  readonly teamId: string;
  readonly botUserId: string;
  readonly session: SessionScope;
  /** Display names by user id, for `<@U123>` mentions. */
  readonly names?: ReadonlyMap<string, string>;
}

/** Subtypes that are edits, deletions and channel notices, not something a person said. */
const IGNORED_SUBTYPES = new Set([
  "message_changed",
  "message_deleted",
  "message_replied",
  "channel_join",
  "channel_leave",
  "channel_topic",
  "channel_purpose",
  "channel_name",
  "bot_add",
  "bot_remove",
]);

/**
 * A Slack event as a channel-neutral message, or undefined when it is not
 * one to answer (an edit, a notice, or a message without text or files).
 * The event id is the channel and the message's ts: Slack sends both a
 * `message` and an `app_mention` event for one mention, and retries, and all
 * of them must make one turn.
 */
export function normalizeSlackEvent(
  event: SlackMessageEvent,
  options: NormalizeOptions,
): InboundMessage | undefined {
  if (event.subtype && IGNORED_SUBTYPES.has(event.subtype)) return undefined;
  const channel = event.channel;
  const ts = event.ts;
  const user = event.user ?? event.bot_id;
  if (!channel || !ts || !user) return undefined;
  const files = event.files ?? [];
  const text = plainText(event.text ?? "", options);
  if (text === "" && files.length === 0) return undefined;
  const thread = event.thread_ts ?? ts;
  const attachments: Attachment[] = files.map((file) => ({
    name: file.name ?? file.id,
    ...(file.mimetype ? { mimeType: file.mimetype } : {}),
    ...(file.size !== undefined ? { size: file.size } : {}),
    ref: file.id,
  }));
  // A direct message outside a thread is one running conversation, answered in place.
  const flatDm = event.channel_type === "im" && !event.thread_ts;
  const perChannel = options.session === "channel" || flatDm;
  return {
    platform: "slack",
    workspace: event.team ?? options.teamId,
    channel,
    conversation: perChannel ? channel : `${channel}:${thread}`,
    ...(flatDm ? {} : { thread }),
    user,
    ...(options.names?.get(user) ? { userName: options.names.get(user) as string } : {}),
    text,
    attachments,
    eventId: `${channel}:${ts}`,
    messageRef: ts,
    time: Math.round(Number(ts) * 1000),
  };
}

/**
 * Slack's markup as plain text: the bot's own mention dropped, other
 * mentions as names, channel and link references as their labels, and the
 * HTML entities Slack escapes turned back.
 */
export function plainText(
  text: string,
  options: Pick<NormalizeOptions, "botUserId" | "names">,
): string {
  return text
    .replace(new RegExp(`<@${options.botUserId}(\\|[^>]*)?>\\s*`, "g"), "")
    .replace(
      /<@([A-Z0-9]+)(?:\|([^>]*))?>/g,
      (_, id: string, label?: string) => `@${label ?? options.names?.get(id) ?? id}`,
    )
    .replace(/<#([A-Z0-9]+)(?:\|([^>]*))?>/g, (_, id: string, label?: string) => `#${label || id}`)
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, "@$1")
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, "$2 ($1)")
    .replace(/<(https?:[^>]+)>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}
