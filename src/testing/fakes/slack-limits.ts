/**
 * The limits Slack enforces, which the fake Web API enforces too. Rate
 * limits, when asked: the method tiers and chat.postMessage's one a second
 * per channel, answered with HTTP 429, `Retry-After` and `ratelimited`.
 * Message limits, always:
 * `text` is cut at 40,000 characters (Slack truncates silently, no error), and
 * blocks fail with `invalid_blocks` past 50 per message, 3,000 characters of
 * section text or 12,000 of markdown block text.
 */

import { RateBuckets } from "./rate-buckets.ts";

// biome-ignore lint/suspicious/noExplicitAny: Web API arguments and answers are loose JSON
export type SlackArgs = Record<string, any>;
// biome-ignore lint/suspicious/noExplicitAny: Web API arguments and answers are loose JSON
export type SlackResult = Record<string, any>;

export const SLACK_TEXT_LIMIT = 40_000;
export const SLACK_BLOCKS_PER_MESSAGE = 50;
export const SLACK_SECTION_TEXT_LIMIT = 3_000;
export const SLACK_MARKDOWN_BLOCK_LIMIT = 12_000;

/** Slack's answer to blocks it refuses, with its "[ERROR] … [json-pointer:…]" messages. */
export function validateBlocks(blocks: unknown): SlackResult | undefined {
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks)) return { ok: false, error: "invalid_blocks_format" };
  const errors: string[] = [];
  if (blocks.length > SLACK_BLOCKS_PER_MESSAGE) {
    errors.push(`must be less than ${SLACK_BLOCKS_PER_MESSAGE + 1} items [json-pointer:/blocks]`);
  }
  blocks.forEach((block: SlackArgs, index) => {
    if (typeof block?.type !== "string") {
      errors.push(`missing required field: type [json-pointer:/blocks/${index}]`);
    } else if (block.type === "section" && textLength(block.text) > SLACK_SECTION_TEXT_LIMIT) {
      errors.push(
        `must be less than ${SLACK_SECTION_TEXT_LIMIT + 1} characters [json-pointer:/blocks/${index}/text/text]`,
      );
    } else if (block.type === "markdown" && textLength(block) > SLACK_MARKDOWN_BLOCK_LIMIT) {
      errors.push(
        `must be less than ${SLACK_MARKDOWN_BLOCK_LIMIT + 1} characters [json-pointer:/blocks/${index}/text]`,
      );
    }
  });
  if (errors.length === 0) return undefined;
  return {
    ok: false,
    error: "invalid_blocks",
    errors,
    response_metadata: { messages: errors.map((error) => `[ERROR] ${error}`) },
  };
}

function textLength(holder: unknown): number {
  const text = (holder as { text?: unknown } | undefined)?.text;
  return typeof text === "string" ? text.length : 0;
}

/**
 * Slack's Web API rate-limit tiers: calls a minute, per method, per
 * workspace, per app ("sporadic bursts are welcome": a minute's worth may
 * come at once).
 */
export const SLACK_TIERS = { 1: 1, 2: 20, 3: 50, 4: 100 } as const;

/** The tiers of the methods a bot calls most, from each method's reference page. */
export const SLACK_METHOD_TIERS: Readonly<Record<string, keyof typeof SLACK_TIERS>> = {
  "chat.update": 3,
  "chat.delete": 3,
  "reactions.add": 3,
  "conversations.info": 3,
  "conversations.replies": 3,
  "conversations.members": 4,
  "chat.postEphemeral": 4,
  "users.info": 4,
};

/** What the fake Web API limits when asked (`startFakeSlackApi({ rateLimits: SLACK_RATE_LIMITS })`). */
export interface SlackRateLimits {
  /** Tiers by method; a method not listed is not limited. */
  readonly tiers: Readonly<Record<string, keyof typeof SLACK_TIERS>>;
  /** chat.postMessage's special tier: about one message a second in a channel... */
  readonly postsPerChannelPerSecond: number;
  /** ...after a short burst of this many. */
  readonly postBurst: number;
}

export const SLACK_RATE_LIMITS: SlackRateLimits = {
  tiers: SLACK_METHOD_TIERS,
  postsPerChannelPerSecond: 1,
  postBurst: 3,
};

/**
 * Slack's rate limiting for one fake workspace: {@link check} answers how
 * many seconds a call must wait (Slack's `Retry-After`), or 0 when it goes.
 * `buckets` records the refusals and the calls made during a wait.
 */
export class SlackRateLimiter {
  readonly buckets = new RateBuckets();

  constructor(private readonly limits: SlackRateLimits) {}

  check(method: string, args: SlackArgs, now = Date.now()): number {
    const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000)) * 1000;
    if (method === "chat.postMessage") {
      const shape = {
        capacity: this.limits.postBurst,
        perSecond: this.limits.postsPerChannelPerSecond,
      };
      return this.buckets.take([[`${method}:${String(args.channel)}`, shape]], now, seconds) / 1000;
    }
    const tier = this.limits.tiers[method];
    if (tier === undefined) return 0;
    const perMinute = SLACK_TIERS[tier];
    const shape = { capacity: perMinute, perSecond: perMinute / 60 };
    return this.buckets.take([[method, shape]], now, seconds) / 1000;
  }
}
