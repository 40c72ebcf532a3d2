/**
 * What the Redis and HTTP client spans may say. Our Redis commands carry
 * message text (the inbox, the history) and platform ids (in the keys); our
 * HTTP requests carry tokens (Telegram's Bot API puts the bot token in the
 * URL path, `/bot<token>/method` and `/file/bot<token>/path`; Discord answers
 * an interaction at `/interactions/<id>/<token>/callback` and
 * `/webhooks/<application>/<token>/...`), platform ids (Discord's
 * `/channels/<id>/messages`) and search queries made from what people wrote. So by default a span keeps the Redis
 * command's name only and a URL without its secrets; `telemetry.capture_content`
 * adds Redis arguments and query values back, never a token.
 */

/** A Telegram bot token as a path segment, `bot123456:AA...`, plain or percent-encoded. */
const TELEGRAM_TOKEN_SEGMENT = /\/bot\d+(?::|%3A)[^/?#]*/gi;
/** Discord's interaction token, the segment after an interaction's or a webhook's id. */
const DISCORD_TOKEN_SEGMENT = /\/(interactions|webhooks)\/(\d+)\/[^/?#]+/g;
/** A platform id as a path segment (Discord snowflakes, Slack-style numeric ids). */
const ID_SEGMENT = /\/\d{6,}(?=[/?#]|$)/g;

/** What a platform id in a path becomes: the route stays readable, the id is gone. */
export const ID = "{id}";

export const REDACTED = "REDACTED";

/** `db.query.text` of a Redis command: its name only, never its keys or arguments. */
export function redisStatement(command: string): string {
  return command;
}

/** A URL path with every token segment replaced, and every platform id. */
export function redactPath(path: string): string {
  return path
    .replace(TELEGRAM_TOKEN_SEGMENT, `/bot${REDACTED}`)
    .replace(DISCORD_TOKEN_SEGMENT, `/$1/$2/${REDACTED}`)
    .replace(ID_SEGMENT, `/${ID}`);
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
