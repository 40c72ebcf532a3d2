/**
 * What every platform of the kit offers a test, the same on Slack, Telegram
 * and Discord: the bot's channel pointed at the fake, a person's message, a
 * file, a click on a button of the bot's, and what the bot posted.
 */
import type { Channel } from "../ingress/channel.ts";

/** The platforms a test bot can be on. */
export type TestPlatformName = "slack" | "telegram" | "discord";

/**
 * Where a person writes: their id, the channel or chat (absent: a direct
 * message with the bot), and a thread (Slack's thread ts, Telegram's topic).
 */
export interface Where {
  readonly user?: string;
  readonly channel?: string;
  readonly thread?: string;
  /**
   * In a channel, whether the message mentions the bot (default true). A
   * message without one is heard in a thread the bot is part of, or in a
   * channel the config lets the bot follow.
   */
  readonly mention?: boolean;
}

/** A message a person sent, as the platform addressed it. */
export interface Said {
  readonly platform: TestPlatformName;
  readonly channel: string;
  /** The thread the bot answers in, when it answers in one. */
  readonly thread: string | undefined;
  /** The platform's id of the message (Slack's ts, Telegram's message_id). */
  readonly id: string;
}

/** A button under a message of the bot's. */
export interface Control {
  readonly label: string;
}

/** A message the bot posted, as it reads now (after its last edit). */
export interface BotPost {
  readonly platform: TestPlatformName;
  readonly channel: string;
  readonly thread: string | undefined;
  readonly id: string;
  readonly text: string;
  readonly controls: readonly Control[];
}

/** A post of the bot's with the platform's own controls, which say how to press them. */
export type PostWith<C extends Control> = Omit<BotPost, "controls"> & {
  readonly controls: readonly C[];
};

/** A file a person sends. */
export interface SentFile {
  readonly name: string;
  readonly bytes: Uint8Array;
  /** The MIME type; default `application/octet-stream`. */
  readonly type?: string;
}

/** Which button to press: its label (exact, or a pattern), on the newest post that has it unless `post` says. */
export interface ClickTarget extends Where {
  readonly label: string | RegExp;
  readonly post?: BotPost;
}

export interface TestPlatform {
  readonly platform: TestPlatformName;
  /** The bot's channel, pointed at this fake; hand it to `createBot({ channels })`. */
  channel(): Channel;
  /** A person writes `text`: in a DM unless `where.channel` says; in a channel it mentions the bot. */
  say(text: string, where?: Where): Promise<Said>;
  /** A person sends a file, with `text` beside it. */
  file(file: SentFile, text?: string, where?: Where): Promise<Said>;
  /** A person presses a button of the bot's; rejects naming the buttons there are when none matches. */
  click(target: ClickTarget): Promise<void>;
  /** What the bot posted, oldest first, each as last edited. */
  posts(): BotPost[];
  /** Closes the fake (the bot stops its own channel). */
  close(): Promise<void>;
}
