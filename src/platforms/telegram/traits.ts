import type { PlatformTraits } from "../platform-traits.ts";

/**
 * Telegram as the bot knows it before grammY is imported (see
 * lazy-channel.ts). Telegram refuses a text over 4,096 characters after
 * entity parsing; the answer is split as markdown before it is converted,
 * so 4,000 leaves room for what conversion adds (a rule, list numbers), and
 * a part that still comes out too long is split again as HTML. The outbound
 * turns markdown into Telegram HTML, where a tg://user link mentions
 * without a username.
 */
export const TELEGRAM_TRAITS: PlatformTraits = Object.freeze({
  platform: "telegram",
  sdk: "grammy",
  maxLength: 4_000,
  canEdit: true,
  activity: "indicator",
  // An action lasts 5 s: one every 4 s keeps it shown, and is the most a chat gets from a turn.
  activityEveryMs: 4_000,
  mention: (user: string) => `[this person](tg://user?id=${user})`,
});
