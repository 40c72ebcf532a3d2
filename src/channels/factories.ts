import { DiscordChannel, type DiscordChannelOptions } from "./discord/channel.ts";
import { SlackChannel, type SlackChannelOptions } from "./slack/channel.ts";
import { TelegramChannel, type TelegramChannelOptions } from "./telegram/channel.ts";

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
export function slackChannel(options: SlackChannelOptions): SlackChannel {
  return new SlackChannel(options);
}

/**
 * Discord through discord.js's gateway: DMs, mentions, replies to the bot
 * and threads it is in become turns; `/tools` and `/skills` are application
 * commands, registered in each server (or globally with `commands: "global"`).
 *
 * @example
 * const bot = createBot({ channels: [discordChannel({ token: process.env.DISCORD_TOKEN! })] });
 */
export function discordChannel(options: DiscordChannelOptions): DiscordChannel {
  return new DiscordChannel(options);
}

/**
 * Telegram through grammY: private chats, and mentions, replies and
 * commands in groups, become turns; long polling unless `webhookUrl` is set.
 *
 * @example
 * const bot = createBot({ channels: [telegramChannel({ token: process.env.TELEGRAM_BOT_TOKEN! })] });
 */
export function telegramChannel(options: TelegramChannelOptions): TelegramChannel {
  return new TelegramChannel(options);
}
