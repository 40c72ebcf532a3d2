import type { TelegramConfig } from "../../core/config/telegram-section.ts";

/** What the channel is built from: its credentials, where its API is, and the config section it reads. */
export interface TelegramChannelOptions {
  /** From @BotFather: `123456:ABC…`. */
  readonly token: string;
  /** A local Bot API server or a test's fake (`TELEGRAM_API_ROOT`), without a trailing slash. */
  readonly apiRoot?: string;
  /** The public webhook URL (`TELEGRAM_WEBHOOK_URL`): webhook mode when set. */
  readonly webhookUrl?: string;
  /** `TELEGRAM_WEBHOOK_SECRET`: Telegram sends it with every update; a wrong one gets 401. */
  readonly webhookSecret?: string;
  /** Where the webhook listens when the runtime has no HTTP server (`SWITCHYARD_HTTP_PORT`). */
  readonly port?: number;
  readonly host?: string;
  /** The config's `telegram:` section, read when needed so a reload applies; default: the bot's config. */
  readonly settings?: () => TelegramConfig;
  /** How long one `getUpdates` waits, in seconds (default 30). */
  readonly pollTimeoutSeconds?: number;
  /** The first pause before an update held by a failure (Redis away) is tried again; it doubles (default 1 s). */
  readonly retryMs?: number;
  /** The longest pause between two tries of a held update (default 15 s). */
  readonly maxRetryMs?: number;
}
