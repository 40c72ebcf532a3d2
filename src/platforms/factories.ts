import type { Channel } from "../ingress/channel.ts";
import type { DiscordChannelOptions } from "./discord/settings.ts";
import { DISCORD_TRAITS } from "./discord/traits.ts";
import { lazyChannel } from "./lazy-channel.ts";
import type { SlackChannelOptions } from "./slack/settings.ts";
import { SLACK_TRAITS } from "./slack/traits.ts";
import type { TelegramChannelOptions } from "./telegram/settings.ts";
import { TELEGRAM_TRAITS } from "./telegram/traits.ts";

/*
 * The factories answer the Channel contract, not the classes: a bot's
 * type-check then never reads the platform SDKs' own declarations (some of
 * which need @types packages nobody should have to add by hand). And the
 * channel's module, with its SDK, is imported when the bot starts the
 * channel (lazy-channel.ts), not when `switchyard` is imported.
 */

/**
 * Slack through `@slack/bolt`: Socket Mode with an app token, else the
 * Events API over HTTP (verified with the signing secret) at `/slack/events`
 * on `port`. Mentions, DMs and threads the bot is in become turns; `/tools`
 * and `/skills` answer with buttons.
 *
 * @example
 * const slack = slackChannel({
 *   botToken: process.env.SLACK_BOT_TOKEN!,
 *   appToken: process.env.SLACK_APP_TOKEN!, // Socket Mode: no public URL needed
 * });
 * const bot = createBot({ channels: [slack] });
 */
export function slackChannel(options: SlackChannelOptions): Channel {
  return lazyChannel(
    SLACK_TRAITS,
    async () => new (await import("./slack/channel.ts")).SlackChannel(options),
  );
}

/**
 * Discord through discord.js's gateway: DMs, mentions, replies to the bot
 * and threads it is in become turns; `/tools` and `/skills` are application
 * commands, registered in each server (or globally with `commands: "global"`).
 *
 * @example
 * const bot = createBot({ channels: [discordChannel({ token: process.env.DISCORD_TOKEN! })] });
 */
export function discordChannel(options: DiscordChannelOptions): Channel {
  return lazyChannel(
    DISCORD_TRAITS,
    async () => new (await import("./discord/channel.ts")).DiscordChannel(options),
  );
}

/**
 * Telegram through grammY: private chats, and mentions, replies and
 * commands in groups, become turns; long polling unless `webhookUrl` is set.
 *
 * @example
 * const bot = createBot({ channels: [telegramChannel({ token: process.env.TELEGRAM_BOT_TOKEN! })] });
 */
export function telegramChannel(options: TelegramChannelOptions): Channel {
  return lazyChannel(
    TELEGRAM_TRAITS,
    async () => new (await import("./telegram/channel.ts")).TelegramChannel(options),
  );
}
