import type { TelegramConfig } from "../../core/config/telegram-section.ts";

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
