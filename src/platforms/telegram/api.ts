import { autoRetry } from "@grammyjs/auto-retry";
import { Api, type ApiClientOptions, GrammyError, HttpError, type Transformer } from "grammy";
import { botApiFetch } from "./bot-api-fetch.ts";
import { floodGateOf } from "./flood-gate.ts";
import { trimRoot } from "./settings.ts";

/**
 * How every Telegram call of Switchyard behaves, ingress and worker alike:
 * new messages keep the bot's pace, and a 429's `retry_after` is waited out
 * and the call made again, without using up attempts (flood-gate.ts); a 5xx
 * is retried up to five times by grammY's auto-retry plugin; a network
 * failure is thrown at once so the caller (the poll loop, the queue's job
 * retry) decides; and no error leaves with the bot token in it.
 */
export function installTelegramTransformers(config: Api["config"], token: string): void {
  // The last one installed runs outermost: every attempt of the auto-retry passes the gate,
  // and errors are redacted after every retry.
  config.use(
    floodGateOf(token).transformer(),
    autoRetry({ maxRetryAttempts: 5, maxDelaySeconds: 60, rethrowHttpErrors: true }),
    redactingTransformer(token),
  );
}

/**
 * A Bot API client for a process that only posts (a worker): the token and,
 * for a local Bot API server or a test's fake, its root. No polling, no
 * `getMe`.
 *
 * @example
 * const api = createTelegramApi(process.env.TELEGRAM_BOT_TOKEN, "http://localhost:8081");
 * await api.sendMessage(chatId, "<b>hi</b>", { parse_mode: "HTML" });
 */
export function createTelegramApi(token: string, apiRoot?: string): Api {
  const api = new Api(token, telegramClientOptions(apiRoot));
  installTelegramTransformers(api.config, token);
  return api;
}

/**
 * The client options of every grammY `Bot` and `Api` of Switchyard: the
 * Bot API root (`TELEGRAM_API_ROOT`, a local Bot API server or a test's
 * fake; Telegram's own when unset) and the pooled fetch (bot-api-fetch.ts).
 */
export function telegramClientOptions(apiRoot?: string): ApiClientOptions {
  return { ...(apiRoot ? { apiRoot: trimRoot(apiRoot) } : {}), fetch: botApiFetch };
}

export { trimRoot } from "./settings.ts";

/** Replaces the token, and the `bot<token>` path segment grammY builds from it, with "[redacted]". */
export function redactToken(text: string, token: string): string {
  return token === "" ? text : text.split(token).join("[redacted]");
}

/** An error's message for a log line, the token redacted, the cause of a network failure included. */
export function describeTelegramError(error: unknown, token: string): string {
  if (error instanceof HttpError) {
    const cause = error.error instanceof Error ? `: ${error.error.message}` : "";
    return redactToken(`${error.message}${cause}`, token);
  }
  if (error instanceof Error) return redactToken(error.message, token);
  return redactToken(String(error), token);
}

/** Whether Telegram answered with this error code (400, 403, 429, ...). */
export function isTelegramError(
  error: unknown,
  code?: number,
  text?: RegExp,
): error is GrammyError {
  return (
    error instanceof GrammyError &&
    (code === undefined || error.error_code === code) &&
    (text === undefined || text.test(error.description))
  );
}

/**
 * grammY keeps the token out of its own messages, but a network error it
 * wraps (`HttpError.error`) may quote the request URL, which holds it.
 */
function redactingTransformer(token: string): Transformer {
  return async (prev, method, payload, signal) => {
    try {
      return await prev(method, payload, signal);
    } catch (error) {
      scrub(error, token);
      throw error;
    }
  };
}

function scrub(error: unknown, token: string, depth = 0): void {
  if (!(error instanceof Error) || depth > 3) return;
  error.message = redactToken(error.message, token);
  if (error.stack) error.stack = redactToken(error.stack, token);
  if (error instanceof HttpError) scrub(error.error, token, depth + 1);
  if (error.cause !== undefined) scrub(error.cause, token, depth + 1);
}
