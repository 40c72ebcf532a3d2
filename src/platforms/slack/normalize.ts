import { z } from "zod";
import { declaredAttachment } from "../../core/attachments/attachment.ts";
import type { Attachment, InboundMessage } from "../../core/conversation.ts";

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
  /** The sender's team (in a Slack Connect channel, not the installation's). */
  readonly team?: string;
  readonly files?: readonly SlackFile[];
}

/** The fields of a Slack file object that Switchyard reads (https://api.slack.com/types/file). */
export interface SlackFile {
  readonly id: string;
  readonly name?: string;
  readonly mimetype?: string;
  readonly size?: number;
  /** Downloads with the bot token as a bearer (`files:read`). */
  readonly url_private_download?: string;
  readonly url_private?: string;
  /** `slack_audio` for an audio clip recorded in Slack, `slack_video` for a video clip. */
  readonly subtype?: string;
}

// Each field on its own: a field of the wrong type is dropped, never the whole event.
const optional = z.string().optional().catch(undefined);
const fileSchema = z.object({
  id: z.string(),
  name: optional,
  mimetype: optional,
  size: z.number().finite().optional().catch(undefined),
  url_private_download: optional,
  url_private: optional,
  subtype: optional,
});
const eventSchema = z.object({
  type: z.string(),
  subtype: optional,
  channel: optional,
  channel_type: optional,
  user: optional,
  bot_id: optional,
  text: optional,
  ts: optional,
  thread_ts: optional,
  team: optional,
  files: z
    .array(z.unknown())
    .transform((files) => files.flatMap((f) => fileSchema.safeParse(f).data ?? []))
    .optional()
    .catch(undefined),
});

/** An event's fields as Switchyard reads them, whatever else it holds; undefined for a non-object. */
export function readMessageEvent(event: unknown): SlackMessageEvent | undefined {
  const parsed = eventSchema.safeParse(event);
  if (!parsed.success) return undefined;
  return Object.fromEntries(
    Object.entries(parsed.data).filter(([, value]) => value !== undefined),
  ) as unknown as SlackMessageEvent;
}

export interface NormalizeOptions {
  /** The team the app is installed in (see payload.ts `installationTeam`): the workspace. */
  readonly teamId: string;
  readonly botUserId: string;
  readonly session: SessionScope;
  /** The app that took it (`slack.accounts`); unset for the only or default app. */
  readonly account?: string;
  /** Display names by user id, for `<@U123>` mentions. */
  readonly names?: ReadonlyMap<string, string>;
}

/**
 * The subtypes that are someone saying something; every other subtype is
 * an edit, a deletion, a notice (joins, renames, canvas mentions, huddles)
 * or something Slack adds later, and is not answered.
 */
const SAID_SUBTYPES = new Set(["file_share", "thread_broadcast", "me_message", "bot_message"]);

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
  if (event.subtype !== undefined && !SAID_SUBTYPES.has(event.subtype)) return undefined;
  const channel = event.channel;
  const ts = event.ts;
  const user = event.user ?? event.bot_id;
  if (!channel || !ts || !user) return undefined;
  const files = event.files ?? [];
  const text = plainText(event.text ?? "", options);
  if (text === "" && files.length === 0) return undefined;
  const thread = event.thread_ts ?? ts;
  const attachments = files.flatMap((file) => slackAttachment(file) ?? []);
  // A direct message outside a thread is one running conversation, answered in place.
  const flatDm = event.channel_type === "im" && !event.thread_ts;
  const perChannel = options.session === "channel" || flatDm;
  return {
    platform: "slack",
    ...(options.account ? { account: options.account } : {}),
    // The installation's team, never the sender's: one shared Slack Connect thread is one conversation.
    workspace: options.teamId,
    channel,
    conversation: perChannel ? channel : `${channel}:${thread}`,
    ...(flatDm ? {} : { thread }),
    user,
    kind: isDirect(event, channel) ? "dm" : "group",
    ...(options.names?.get(user) ? { userName: options.names.get(user) as string } : {}),
    text,
    attachments,
    eventId: `${channel}:${ts}`,
    messageRef: ts,
    time: Math.round(Number(ts) * 1000),
  };
}

/**
 * A Slack file as an attachment: fetched by `url_private_download` with the
 * bot token. A file Slack hides (`hidden_by_limit`, or a Slack Connect file
 * that needs `files.info`) has only its id, and is named by it.
 */
export function slackAttachment(file: SlackFile): Attachment | undefined {
  return declaredAttachment(
    {
      ref: file.id,
      name: file.name,
      mimeType: file.mimetype,
      size: file.size,
      url: file.url_private_download ?? file.url_private,
      voice: file.subtype === "slack_audio",
    },
    file.id,
  );
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

/**
 * A direct message: Slack says `im`, or (an `app_mention` carries no
 * channel type) the channel is a DM's, whose ids start with D. A group DM
 * (`mpim`) has several people in it: a group, like a channel.
 */
function isDirect(event: SlackMessageEvent, channel: string): boolean {
  if (event.channel_type !== undefined) return event.channel_type === "im";
  return channel.startsWith("D");
}
