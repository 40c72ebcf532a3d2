import { fillEnvTemplate } from "../../core/config/env-template.ts";
import type { SwitchyardConfig } from "../../core/config/index.ts";
import { DEFAULT_TELEGRAM, type TelegramAccount, type TelegramConfig } from "./config-section.ts";

// The Telegram channel's settings: its options, where they come from in the
// environment, and how updates arrive (polling or webhook).

/** What the channel is built from: its credentials, where its API is, and the config section it reads. */
export interface TelegramChannelOptions {
  /** From @BotFather: `123456:ABC…`. */
  readonly token: string;
  /**
   * The account's id, for a bot listed under `telegram.accounts`: its
   * messages carry it on their address, so its chats, history and limits
   * are its own. Unset for the only (or default) bot.
   */
  readonly account?: string;
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

/** How updates arrive. */
export type TelegramMode =
  | { readonly kind: "polling" }
  | { readonly kind: "webhook"; readonly url: string; readonly secret: string };

/** The Telegram settings cannot work together; the message names the variable to set. */
export class TelegramSettingsError extends Error {
  override readonly name = "TelegramSettingsError";
}

/** Telegram's rule for `secret_token`: 1-256 of A-Z, a-z, 0-9, "_" and "-". */
const SECRET = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * Polling or webhook, from the environment (which wins) and the config
 * file's `telegram:` section: webhook when the file says so or a webhook URL
 * is set, polling otherwise. A webhook needs its URL, with a path, and a
 * secret, so a stranger who finds the URL cannot post updates.
 *
 * @example
 * resolveTelegramMode({ webhookUrl: "https://bot.example.com/telegram", webhookSecret: "s3cret" }, { conversation: "topic" });
 * // { kind: "webhook", url: "https://bot.example.com/telegram", secret: "s3cret" }
 */
export function resolveTelegramMode(
  env: { readonly webhookUrl?: string; readonly webhookSecret?: string },
  file: TelegramConfig,
): TelegramMode {
  const url = env.webhookUrl ?? file.webhookUrl;
  const mode = file.mode ?? (url ? "webhook" : "polling");
  if (mode === "polling") return { kind: "polling" };
  if (!url) {
    throw new TelegramSettingsError(
      "The Telegram channel is set to webhook mode but has no webhook URL. Set TELEGRAM_WEBHOOK_URL (or telegram.webhook_url), or use mode: polling.",
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TelegramSettingsError(
      `TELEGRAM_WEBHOOK_URL ${JSON.stringify(url)} is not a URL. Write the public https address Telegram posts to, e.g. https://bot.example.com/telegram.`,
    );
  }
  if (parsed.pathname === "/" || parsed.pathname === "") {
    throw new TelegramSettingsError(
      `TELEGRAM_WEBHOOK_URL ${JSON.stringify(url)} has no path. Give the webhook its own, e.g. ${parsed.origin}/telegram.`,
    );
  }
  const secret = env.webhookSecret;
  if (!secret || !SECRET.test(secret)) {
    throw new TelegramSettingsError(
      secret
        ? 'TELEGRAM_WEBHOOK_SECRET may use only letters, digits, "_" and "-" (1 to 256 of them), as Telegram requires.'
        : 'The Telegram webhook needs TELEGRAM_WEBHOOK_SECRET (1 to 256 letters, digits, "_" or "-"): Telegram sends it with every update, and a request without it is refused.',
    );
  }
  return { kind: "webhook", url: url.replace(/\/+$/, ""), secret };
}

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
  checkToken(token, "TELEGRAM_BOT_TOKEN");
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

/**
 * The options of each bot under `telegram.accounts`, its token filled from
 * the environment (`token: ${TELEGRAM_SALES_TOKEN}`). Each polls on its
 * own, or takes its own webhook at its own `webhook_url` (with
 * `TELEGRAM_WEBHOOK_SECRET`); `TELEGRAM_API_ROOT` is every bot's. A token
 * that is unset or malformed fails now, naming the account.
 *
 * @example
 * const sales = telegramAccountOptions(process.env, () => liveConfig.current, 3000);
 * // [{ account: "sales", token: "123:abc", settings: ... }]
 */
export function telegramAccountOptions(
  env: NodeJS.ProcessEnv,
  config: () => SwitchyardConfig,
  port?: number,
): TelegramChannelOptions[] {
  const accounts = config().telegram.accounts ?? [];
  const apiRoot = env.TELEGRAM_API_ROOT?.trim() || undefined;
  const webhookSecret = env.TELEGRAM_WEBHOOK_SECRET?.trim() || undefined;
  return accounts.map((account) => {
    const where = `telegram account ${JSON.stringify(account.id)}`;
    const token = fillEnvTemplate(account.token, env, `the token of ${where}`).trim();
    checkToken(token, `The token of ${where}`);
    const settings = (): TelegramConfig => accountSettings(config().telegram, account);
    if (account.webhookUrl) {
      resolveTelegramMode(
        { webhookUrl: account.webhookUrl, ...(webhookSecret ? { webhookSecret } : {}) },
        settings(),
      );
    }
    return {
      token,
      account: account.id,
      ...(apiRoot ? { apiRoot: trimRoot(apiRoot) } : {}),
      ...(account.webhookUrl ? { webhookUrl: account.webhookUrl } : {}),
      ...(account.webhookUrl && webhookSecret ? { webhookSecret } : {}),
      ...(port !== undefined ? { port } : {}),
      settings,
    };
  });
}

/**
 * The section as one account reads it: the shared keys, its own webhook or
 * none (never the default bot's), and its own `paid_broadcast` when it says.
 */
function accountSettings(section: TelegramConfig, account: TelegramAccount): TelegramConfig {
  const { webhookUrl: _, mode: __, accounts: ___, ...shared } = section;
  const own = {
    ...shared,
    ...(account.paidBroadcast !== undefined ? { paidBroadcast: account.paidBroadcast } : {}),
  };
  return account.webhookUrl
    ? { ...own, mode: "webhook", webhookUrl: account.webhookUrl }
    : { ...own, mode: "polling" };
}

function checkToken(token: string, name: string): void {
  if (!TOKEN.test(token)) {
    throw new TelegramSettingsError(
      `${name} does not look like a bot token (digits, a colon, then letters, digits, "_" and "-"). Copy it again from @BotFather.`,
    );
  }
}

/** grammY appends `/bot<token>/<method>` to the root: a trailing slash would double it. */
export function trimRoot(apiRoot: string): string {
  return apiRoot.replace(/\/+$/, "");
}
