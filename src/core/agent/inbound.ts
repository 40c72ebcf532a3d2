/**
 * A platform message in channel-neutral form: what every channel adapter
 * produces and what the queue carries.
 */
export interface Attachment {
  readonly name: string;
  readonly mimeType?: string;
  readonly size?: number;
  /** A platform reference to fetch it by (a file id or URL); never fetched unless a tool needs it. */
  readonly ref: string;
}

export interface ConversationAddress {
  /** `slack`, `discord`, `telegram`, `console`, ... */
  readonly platform: string;
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
  readonly text: string;
  readonly attachments: readonly Attachment[];
  /** The platform's id for this event: the same event delivered twice has the same id. */
  readonly eventId: string;
  /** The platform's id of the message, to reply to. */
  readonly messageRef?: string;
  /** Milliseconds since the epoch, as the platform stamped it. */
  readonly time: number;
}

/** One string per conversation, the same on every machine. */
export function conversationKey(address: ConversationAddress): string {
  return [address.platform, address.workspace, address.channel, address.conversation]
    .map((part) => encodeURIComponent(part))
    .join(":");
}
