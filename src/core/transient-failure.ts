/**
 * Whether a failure says "not now" rather than "never": Redis refusing or
 * unreachable, a network hop that broke, a timeout. Ingress tries such an
 * event again (a platform redelivers it, a poller holds it) for as long as
 * it takes; any other failure is the event's own (a bug, a payload nothing
 * can read) and trying again would only fail again.
 */

/**
 * Redis replies that blame Redis, not the command: out of memory under
 * `noeviction`, a replica or a failover, a dataset still loading, a busy
 * script, a cluster without quorum, a snapshot that cannot be written, an
 * ACL an operator has yet to fix.
 */
const REDIS_NOT_NOW =
  /^(OOM|READONLY|LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|MISCONF|NOAUTH|NOPERM|MOVED|ASK|UNBLOCKED)\b/;

/** What ioredis and BullMQ say when the connection, not the command, failed. */
const CONNECTION_MESSAGES =
  /Connection is closed|Stream isn't writeable|max retries per request|Command timed out|Socket closed unexpectedly|connect ETIMEDOUT|All sentinels are unreachable|Failed to refresh slots cache/i;

/** Node's and undici's error codes for a network hop that failed. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** Error names that mean a wait ran out or a connection gave up, never a bad payload. */
const NOT_NOW_NAMES = new Set([
  "MaxRetriesPerRequestError",
  "ClusterAllFailedError",
  "TimeoutError",
  "ConnectionTimeoutError",
]);

/**
 * True when `error`, or anything it wraps (`cause`, grammY's `error`, an
 * AggregateError's `errors`), is a Redis or network failure that passes.
 * `also` adds a channel's own (a platform's 5xx or 429).
 *
 * @example
 * isTransientFailure(new ReplyError("OOM command not allowed when used memory > 'maxmemory'.")); // true
 * isTransientFailure(new TypeError("Cannot read properties of undefined (reading 'id')")); // false
 */
export function isTransientFailure(
  error: unknown,
  also: (error: unknown) => boolean = () => false,
): boolean {
  const seen = new Set<unknown>();
  const visit = (current: unknown, depth: number): boolean => {
    if (current === null || typeof current !== "object" || seen.has(current) || depth > 6) {
      return false;
    }
    seen.add(current);
    if (also(current) || isNotNow(current)) return true;
    const wrapped = current as { cause?: unknown; error?: unknown; errors?: unknown };
    if (visit(wrapped.cause, depth + 1) || visit(wrapped.error, depth + 1)) return true;
    return Array.isArray(wrapped.errors) && wrapped.errors.some((e) => visit(e, depth + 1));
  };
  return visit(error, 0);
}

function isNotNow(error: object): boolean {
  const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
  if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
  if (typeof name === "string" && NOT_NOW_NAMES.has(name)) return true;
  if (typeof message !== "string") return false;
  if (name === "ReplyError" && REDIS_NOT_NOW.test(message)) return true;
  // BullMQ and Lua scripts pass Redis's refusal on inside their own message.
  if (/(^|: )(OOM|READONLY|LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN) /.test(message)) return true;
  return CONNECTION_MESSAGES.test(message);
}
