/**
 * Discord's per-route rate limits, as the fake REST API holds them when
 * asked (`startFakeDiscord({ routeLimits: DISCORD_ROUTE_LIMITS })`): each
 * route and its major parameter (the channel of `/channels/{id}/...`) is a
 * bucket of a few calls per window. Every answer on a limited route carries
 * the `x-ratelimit-*` headers discord.js paces itself by; a call past the
 * bucket is a 429 with `retry_after` in the body (seconds, fractional) and
 * `Retry-After` in the headers, as Discord sends it.
 */
import { type BucketShape, RateBuckets } from "./rate-buckets.ts";

export interface DiscordRouteLimits {
  /** Calls per route and channel in one window... */
  readonly perRoute: number;
  /** ...of this many seconds. */
  readonly windowSeconds: number;
}

/** What Discord answers for sending and editing messages in a channel: 5 per 5 s. */
export const DISCORD_ROUTE_LIMITS: DiscordRouteLimits = { perRoute: 5, windowSeconds: 5 };

/** The headers and, when refused, the 429 body of one call on a limited route. */
export interface RouteVerdict {
  readonly headers: Record<string, string>;
  /** Set when the call is refused: seconds to wait. */
  readonly retryAfter?: number;
}

export class DiscordRouteLimiter {
  readonly buckets = new RateBuckets();
  readonly #shape: BucketShape;

  constructor(private readonly limits: DiscordRouteLimits) {
    this.#shape = { capacity: limits.perRoute, perSecond: limits.perRoute / limits.windowSeconds };
  }

  /** The verdict on a call, or undefined for a route the fake does not limit. */
  check(method: string, path: string, now = Date.now()): RouteVerdict | undefined {
    const route = routeOf(method, path);
    if (route === undefined) return undefined;
    const waitMs = this.buckets.take([[route, this.#shape]], now);
    const remaining = this.buckets.remaining(route, this.#shape, now);
    const resetAfter = waitMs > 0 ? waitMs / 1000 : this.limits.windowSeconds;
    const headers = {
      "x-ratelimit-limit": String(this.limits.perRoute),
      "x-ratelimit-remaining": String(waitMs > 0 ? 0 : remaining),
      "x-ratelimit-reset-after": resetAfter.toFixed(3),
      "x-ratelimit-bucket": bucketId(route),
    };
    if (waitMs === 0) return { headers };
    return {
      retryAfter: waitMs / 1000,
      headers: {
        ...headers,
        "retry-after": String(Math.ceil(waitMs / 1000)),
        "x-ratelimit-scope": "user",
      },
    };
  }
}

/**
 * The bucket a call falls in: message routes of a channel, by method,
 * with message ids left out (Discord shares one bucket across a channel's
 * messages). Other routes are not limited by the fake.
 */
function routeOf(method: string, path: string): string | undefined {
  const match = /^\/channels\/(\d+)\/messages(\/\d+)?$/.exec(path);
  if (!match) return undefined;
  return `${method} /channels/${match[1]}/messages${match[2] ? "/:id" : ""}`;
}

/** A stable opaque id per route shape, as Discord's bucket hashes are (the channel is the major parameter). */
function bucketId(route: string): string {
  return route.replace(/\/channels\/\d+/, "/channels/:channel").replace(/\W+/g, "-");
}
