import { StartOptionError } from "../bot/errors.ts";
import type { Channel } from "../channels/channel.ts";
import { DiscordChannel } from "../channels/discord/channel.ts";
import { discordOptionsFromEnv } from "../channels/discord/settings.ts";
import { SlackChannel } from "../channels/slack/channel.ts";
import { TelegramChannel } from "../channels/telegram/channel.ts";
import { telegramOptionsFromEnv } from "../channels/telegram/settings.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import { registerSecret } from "../observability/logger.ts";

/**
 * What `switchyard start` reads from the environment: which platforms run,
 * the model, ports and numbers. Every mistake is a {@link StartOptionError}
 * naming the variable, raised before anything starts.
 */

export { StartOptionError } from "../bot/errors.ts";
export { modelLimitsFromEnv, providerFromEnv } from "../bot/provider-env.ts";

/**
 * The platform channels whose credentials are set. With none, the process
 * runs the console channel instead.
 */
export function platformChannels(
  env: NodeJS.ProcessEnv,
  httpPort: number,
  config: () => SwitchyardConfig,
): Channel[] {
  const channels: Channel[] = [];
  if (env.SLACK_BOT_TOKEN) {
    if (!env.SLACK_SIGNING_SECRET && !env.SLACK_APP_TOKEN) {
      throw new StartOptionError(
        "SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (Events API over HTTP) nor SLACK_APP_TOKEN (Socket Mode) is. Set one of them.",
      );
    }
    registerSecret(env.SLACK_BOT_TOKEN);
    channels.push(
      new SlackChannel({
        botToken: env.SLACK_BOT_TOKEN,
        ...(env.SLACK_SIGNING_SECRET ? { signingSecret: env.SLACK_SIGNING_SECRET } : {}),
        ...(env.SLACK_APP_TOKEN ? { appToken: env.SLACK_APP_TOKEN } : {}),
        ...(env.SLACK_API_URL ? { apiUrl: env.SLACK_API_URL } : {}),
        port: httpPort,
        settings: () => config().slack,
      }),
    );
  }
  const discord = discordOptionsFromEnv(env, config);
  if (discord) {
    registerSecret(discord.token);
    channels.push(new DiscordChannel(discord));
  }
  const telegram = telegramOptionsFromEnv(env, config, httpPort);
  if (telegram) {
    if (
      telegram.webhookUrl &&
      env.SLACK_BOT_TOKEN &&
      env.SLACK_SIGNING_SECRET &&
      !env.SLACK_APP_TOKEN
    ) {
      throw new StartOptionError(
        "Slack's Events API and Telegram's webhook would both listen on SWITCHYARD_HTTP_PORT. Run Slack in Socket Mode (SLACK_APP_TOKEN), run Telegram by long polling (unset TELEGRAM_WEBHOOK_URL), or run them in separate processes.",
      );
    }
    registerSecret(telegram.token);
    registerSecret(telegram.webhookSecret);
    channels.push(new TelegramChannel(telegram));
  }
  return channels;
}

export function portFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new StartOptionError(`${name} must be a port number (0 turns it off), not "${raw}".`);
  }
  return port;
}

export function numberFromEnv<K extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  key: K,
): Partial<Record<K, number>> {
  const raw = env[name];
  if (raw === undefined || raw === "") return {};
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new StartOptionError(`${name} must be a positive number, not "${raw}".`);
  }
  return { [key]: value } as Partial<Record<K, number>>;
}
