/**
 * What the Redis and HTTP client spans may say. Our Redis commands carry
 * message text (the inbox, the history) and platform ids (in the keys); our
 * HTTP requests carry tokens (Telegram's Bot API puts the bot token in the
 * URL path, `/bot<token>/method` and `/file/bot<token>/path`) and search
 * queries made from what people wrote. So by default a span keeps the Redis
 * command's name only and a URL without its secrets; `telemetry.capture_content`
 * adds Redis arguments and query values back, never a token.
 */

/** A Telegram bot token as a path segment, `bot123456:AA...`, plain or percent-encoded. */
const TELEGRAM_TOKEN_SEGMENT = /\/bot\d+(?::|%3A)[^/?#]*/gi;

export const REDACTED = "REDACTED";

/** `db.query.text` of a Redis command: its name only, never its keys or arguments. */
export function redisStatement(command: string): string {
  return command;
}

/** A URL path with every Telegram token segment replaced. */
export function redactPath(path: string): string {
  return path.replace(TELEGRAM_TOKEN_SEGMENT, `/bot${REDACTED}`);
}

/**
 * A query string (`?a=1&b=2`) with every value replaced, keys kept so a span
 * still tells which parameters a request had; the values may be a search made
 * from a message, or an API key. `keepValues` (capture_content) keeps them.
 */
export function redactQuery(search: string, keepValues: boolean): string {
  if (search === "" || search === "?") return "";
  if (keepValues) return search;
  const keys = [...new URLSearchParams(search).keys()];
  return `?${keys.map((key) => `${encodeURIComponent(key)}=${REDACTED}`).join("&")}`;
}

/** The URL attributes of an HTTP client span, without credentials, tokens or (by default) query values. */
export function redactedUrlAttributes(
  url: URL,
  keepQueryValues: boolean,
): { "url.full": string; "url.path": string; "url.query": string } {
  const path = redactPath(url.pathname);
  const query = redactQuery(url.search, keepQueryValues);
  const port = url.port ? `:${url.port}` : "";
  return {
    "url.full": `${url.protocol}//${url.hostname}${port}${path}${query}`,
    "url.path": path,
    "url.query": query,
  };
}
