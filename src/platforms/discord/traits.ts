import type { PlatformTraits } from "../platform-traits.ts";

/**
 * Discord as the bot knows it before discord.js is imported (see
 * lazy-channel.ts). Discord refuses messages over 2,000 characters.
 */
export const DISCORD_TRAITS: PlatformTraits = Object.freeze({
  platform: "discord",
  sdk: "discord.js",
  maxLength: 2_000,
  canEdit: true,
  // Discord's only indicator is typing: a running tool gets a status line of its own.
  activity: "line",
  mention: (user: string) => `<@${user}>`,
});
