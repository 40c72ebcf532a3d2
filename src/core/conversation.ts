/**
 * A platform message in channel-neutral form: what every channel adapter
 * produces and what the queue carries.
 */
export interface Attachment {
  /**
   * The platform's id for the file (Slack `F…`, Telegram `file_id`, Discord
   * attachment id, the console's path): what the worker fetches and caches it by.
   */
  readonly ref: string;
  readonly name: string;
  /** The type the platform declared; the worker sniffs the bytes and trusts those. */
  readonly mimeType?: string;
  /** The size the platform declared, in bytes. */
  readonly size?: number;
  /** Where to download it, when the platform says (Slack `url_private_download`, Discord's CDN URL). */
  readonly url?: string;
  /** The platform marks it a voice message (Telegram voice, a Discord voice message, a Slack audio clip). */
  readonly voice?: boolean;
}

export interface ConversationAddress {
  /** `slack`, `discord`, `telegram`, `console`, ... */
  readonly platform: string;
  /**
   * The bot account that received it, when the platform's section lists
   * several `accounts:` (a second Slack app, another Telegram bot token).
   * Absent for the platform's only account, so every key made before
   * accounts existed stays the same. Two accounts in one chat are two
   * conversations: the account is part of {@link conversationKey}.
   */
  readonly account?: string;
  /** Slack team, Discord guild, Telegram chat. */
  readonly workspace: string;
  readonly channel: string;
  /** The thread or the channel, depending on the channel's session scope. */
  readonly conversation: string;
}

export interface InboundMessage extends ConversationAddress {
  /** The thread to answer in, when the platform has threads. */
  readonly thread?: string;
  readonly user: string;
  readonly userName?: string;
  /**
   * A direct message with the bot, or one in a group (a Slack channel, a
   * Discord guild channel, a Telegram group), as the channel saw it; the
   * access policy reads it. Absent reads as a direct message, the stricter
   * of the two by default.
   */
  readonly kind?: "dm" | "group";
  readonly text: string;
  /**
   * What the platform says about where the message was written, for the
   * model: not the person's words and nothing an outsider wrote (Slack's
   * assistant pane: the channel the person is looking at). The turn puts it
   * before the text, in brackets, in this message alone, so the prompt
   * before it stays the same for every conversation.
   */
  readonly platformContext?: string;
  readonly attachments: readonly Attachment[];
  /** The platform's id for this event: the same event delivered twice has the same id. */
  readonly eventId: string;
  /** The platform's id of the message, to reply to. */
  readonly messageRef?: string;
  /** Milliseconds since the epoch, as the platform stamped it. */
  readonly time: number;
  /** When the inbox took it, on this side's clock (set by the queue; the quiet window reads it). */
  readonly receivedAt?: number;
  /**
   * Set when no person wrote it: a schedule's tick (its id, the tick it runs
   * for, the earlier ticks it stands for). `user` is then the schedule's
   * owner, whose access, limits and budgets the turn uses.
   */
  readonly scheduled?: { readonly id: string; readonly tick: number; readonly missed: number };
  /**
   * Set when a hook's call made it (its name and the caller's delivery id).
   * `user` is then the hook's owner; the text holds the call's values as
   * untrusted blocks.
   */
  readonly hook?: { readonly name: string; readonly delivery: string };
  /** The W3C trace context of the message's ingress (`traceparent`), set by the queue when tracing is on. */
  readonly trace?: Readonly<Record<string, string>>;
}

/** The longest {@link InboundMessage.platformContext} the queue takes. */
export const PLATFORM_CONTEXT_LIMIT = 1_000;

/** A message's text as the model reads it: its platform context first, in brackets, when it has one. */
export function modelText(message: Pick<InboundMessage, "text" | "platformContext">): string {
  return message.platformContext ? `[${message.platformContext}]\n\n${message.text}` : message.text;
}

/**
 * Just the address of something that has one (a message, a delivery
 * target): what a job or a record stores, the account kept when there is one.
 */
export function addressOnly(from: ConversationAddress): ConversationAddress {
  return {
    platform: from.platform,
    ...(from.account ? { account: from.account } : {}),
    workspace: from.workspace,
    channel: from.channel,
    conversation: from.conversation,
  };
}

/** One string per conversation, the same on every machine. */
export function conversationKey(address: ConversationAddress): string {
  // Asked a dozen times a turn: no array, and no encoding where it would change nothing.
  return `${accountPlatform(address)}:${keyPart(address.workspace)}:${keyPart(address.channel)}:${keyPart(address.conversation)}`;
}

/**
 * The platform and the account, as a key writes them: `telegram` for the
 * platform's only (or default) account, `telegram@sales` for the account
 * `sales`. What is kept per account (event ledgers, rate-limit buckets)
 * is kept under it, so two bots in one chat never share a count or a
 * dedupe.
 */
export function accountPlatform(
  address: Pick<ConversationAddress, "platform" | "account">,
): string {
  return address.account
    ? `${keyPart(address.platform)}@${keyPart(address.account)}`
    : keyPart(address.platform);
}

/**
 * The address a {@link conversationKey} names, or undefined when `key` is
 * not one. The inverse of conversationKey: `@` is escaped inside every part,
 * so the first raw `@` of the first part is the account's.
 *
 * @example
 * parseConversationKey("telegram@sales:-100:-100:-100");
 * // { platform: "telegram", account: "sales", workspace: "-100", channel: "-100", conversation: "-100" }
 */
export function parseConversationKey(key: string): ConversationAddress | undefined {
  const parts = key.split(":");
  if (parts.length !== 4) return undefined;
  const [head, workspace, channel, conversation] = parts as [string, string, string, string];
  const at = head.indexOf("@");
  const platform = at === -1 ? head : head.slice(0, at);
  const account = at === -1 ? undefined : head.slice(at + 1);
  if (account === "" || account?.includes("@")) return undefined;
  try {
    return {
      platform: decodeURIComponent(platform),
      ...(account !== undefined ? { account: decodeURIComponent(account) } : {}),
      workspace: decodeURIComponent(workspace),
      channel: decodeURIComponent(channel),
      conversation: decodeURIComponent(conversation),
    };
  } catch {
    return undefined;
  }
}

/** Exactly the characters `encodeURIComponent` leaves as they are. */
const UNESCAPED = /^[\w.!~*'()-]*$/;

function keyPart(part: string): string {
  return UNESCAPED.test(part) ? part : encodeURIComponent(part);
}

/**
 * The longest text one message may carry. Longer input is not queued: the
 * channel answers it on the spot with {@link tooLongReply}, once, so the
 * person knows why nothing else happened.
 */
export const INBOUND_TEXT_LIMIT = 100_000;

/** Whether a message's text is over {@link INBOUND_TEXT_LIMIT}. */
export function isTooLong(text: string): boolean {
  return text.length > INBOUND_TEXT_LIMIT;
}

/** What the bot says to a message over the limit: how long it was, what the limit is, what to do. */
export function tooLongReply(length: number): string {
  const shown = (n: number) => n.toLocaleString("en-US");
  return `That message is ${shown(length)} characters long; I read at most ${shown(INBOUND_TEXT_LIMIT)}. Send it in shorter parts, or as a file.`;
}
