import type { SwitchyardConfig } from "../../core/config/index.ts";
import { DEFAULT_TELEGRAM } from "../../core/config/telegram-section.ts";
import { trimRoot } from "./api.ts";
import type { TelegramChannelOptions } from "./channel.ts";
import { resolveTelegramMode, TelegramSettingsError } from "./settings.ts";

/** What @BotFather hands out: the bot's id, a colon, a secret. */
const TOKEN = /^\d+:[A-Za-z0-9_-]+$/;

/**
 * The Telegram channel's options from the environment, or `undefined`
 * without `TELEGRAM_BOT_TOKEN` (the channel stays off). `TELEGRAM_API_ROOT`,
 * `TELEGRAM_WEBHOOK_URL` and `TELEGRAM_WEBHOOK_SECRET` win over the config's
 * `telegram:` keys, which are read through `settings` when the channel
 * starts (mode, webhook URL, API root) or on every message (conversation).
 * The webhook listens on `port` (`SWITCHYARD_HTTP_PORT`).
 *
 * @example
 * const options = telegramOptionsFromEnv(process.env, () => liveConfig.current, 3000);
 * if (options) channels.push(new TelegramChannel(options));
 */
export function telegramOptionsFromEnv(
  env: NodeJS.ProcessEnv,
  config: () => SwitchyardConfig,
  port?: number,
): TelegramChannelOptions | undefined {
  const token = env.TELEGRAM_BOT_TOKEN?.trim();
  if (!token) return undefined;
  if (!TOKEN.test(token)) {
    throw new TelegramSettingsError(
      'TELEGRAM_BOT_TOKEN does not look like a bot token (digits, a colon, then letters, digits, "_" and "-"). Copy it again from @BotFather.',
    );
  }
  const value = (name: string) => env[name]?.trim() || undefined;
  const apiRoot = value("TELEGRAM_API_ROOT");
  const webhookUrl = value("TELEGRAM_WEBHOOK_URL");
  const webhookSecret = value("TELEGRAM_WEBHOOK_SECRET");
  // What the environment alone gets wrong fails now, before anything starts.
  resolveTelegramMode(
    { ...(webhookUrl ? { webhookUrl } : {}), ...(webhookSecret ? { webhookSecret } : {}) },
    DEFAULT_TELEGRAM,
  );
  return {
    token,
    ...(apiRoot ? { apiRoot: trimRoot(apiRoot) } : {}),
    ...(webhookUrl ? { webhookUrl } : {}),
    ...(webhookSecret ? { webhookSecret } : {}),
    ...(port !== undefined ? { port } : {}),
    settings: () => config().telegram,
  };
}
