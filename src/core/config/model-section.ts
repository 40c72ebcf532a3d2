import { z } from "zod";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * How long the bot waits for the model, and how much of one reply it keeps.
 * Each key has an environment twin that wins when both are set (see
 * {@link MODEL_LIMIT_ENV}); the model's name and address stay in the
 * environment (`SWITCHYARD_MODEL`, `OPENAI_BASE_URL`).
 *
 * ```yaml
 * model:
 *   first_byte_ms: 60000       # the reply must start within this (raise it for models that think first)
 *   idle_ms: 30000             # a reply that goes quiet this long mid-stream is given up
 *   call_ms: 300000            # one model request, its retries included, never takes longer
 *   max_answer_chars: 40000    # a longer answer is cut, with a note saying so
 *   max_tool_call_chars: 100000  # a tool call with longer arguments is not run; the model is told
 *   max_tool_calls: 32         # a reply asking for more calls at once runs none of them
 *   vision: true               # the bot's own model takes images (`vision`); env SWITCHYARD_MODEL_VISION
 *   provider: anthropic        # openai (any OpenAI-compatible server, the default) or anthropic
 *   cache_ttl: 1h              # Anthropic only: how long cached prefixes live, 5m (default) or 1h
 *   thinking_budget: 4096      # Anthropic only: extended thinking's tokens (1024 to 8191); unset: none
 * ```
 */
export interface ModelLimits {
  /** From sending the request to the first byte of the reply's body, per attempt. */
  readonly firstByteMs: number;
  /** The longest silence allowed once the reply has started. */
  readonly idleMs: number;
  /** One model call from start to end, every retry and backoff included. */
  readonly callMs: number;
  readonly maxAnswerChars: number;
  /** The arguments of one tool call, in characters. */
  readonly maxToolCallChars: number;
  /** Tool calls in one reply. */
  readonly maxToolCalls: number;
}

/**
 * Why these numbers: a healthy model starts streaming within seconds and
 * never pauses for half a minute once it has started, so 60 s and 30 s only
 * ever cut off a server that is stuck. Five minutes per call leaves room for a
 * long answer from a slow local model (2,000 tokens at 10 tokens/s is 200 s).
 * 40,000 characters is what one Slack message holds and more than most models
 * write unasked; no sensible tool call needs 100,000 characters of arguments
 * (they are sent back to the model on every later step), nor 32 calls at once.
 */
export const DEFAULT_MODEL_LIMITS: ModelLimits = Object.freeze({
  firstByteMs: 60_000,
  idleMs: 30_000,
  callMs: 300_000,
  maxAnswerChars: 40_000,
  maxToolCallChars: 100_000,
  maxToolCalls: 32,
});

interface LimitRule {
  /** The key in the config file's `model:` section. */
  readonly key: string;
  /** The environment variable that overrides it. */
  readonly env: string;
  readonly unit: "milliseconds" | "characters" | "tool calls";
  readonly min: number;
  readonly max: number;
}

const HOUR_MS = 3_600_000;

/** One home for each limit's names and bounds: the config schema and the environment reader both use it. */
export const MODEL_LIMIT_RULES: Readonly<Record<keyof ModelLimits, LimitRule>> = Object.freeze({
  firstByteMs: {
    key: "first_byte_ms",
    env: "SWITCHYARD_MODEL_FIRST_BYTE_MS",
    unit: "milliseconds",
    min: 100,
    max: HOUR_MS,
  },
  idleMs: {
    key: "idle_ms",
    env: "SWITCHYARD_MODEL_IDLE_MS",
    unit: "milliseconds",
    min: 100,
    max: HOUR_MS,
  },
  callMs: {
    key: "call_ms",
    env: "SWITCHYARD_MODEL_CALL_MS",
    unit: "milliseconds",
    min: 100,
    max: HOUR_MS,
  },
  maxAnswerChars: {
    key: "max_answer_chars",
    env: "SWITCHYARD_MODEL_MAX_ANSWER_CHARS",
    unit: "characters",
    min: 1_000,
    max: 1_000_000,
  },
  maxToolCallChars: {
    key: "max_tool_call_chars",
    env: "SWITCHYARD_MODEL_MAX_TOOL_CALL_CHARS",
    unit: "characters",
    min: 1_000,
    max: 5_000_000,
  },
  maxToolCalls: {
    key: "max_tool_calls",
    env: "SWITCHYARD_MODEL_MAX_TOOL_CALLS",
    unit: "tool calls",
    min: 1,
    max: 1_000,
  },
});

export const MODEL_LIMIT_NAMES = Object.keys(MODEL_LIMIT_RULES) as (keyof ModelLimits)[];

/** Whether `value` is a valid setting for `name`; the message says what is wanted when it is not. */
export function checkModelLimit(name: keyof ModelLimits, value: number): string | undefined {
  const rule = MODEL_LIMIT_RULES[name];
  if (Number.isInteger(value) && value >= rule.min && value <= rule.max) return undefined;
  return `must be a whole number of ${rule.unit} from ${rule.min} to ${rule.max}, e.g. ${DEFAULT_MODEL_LIMITS[name]}`;
}

const limit = (name: keyof ModelLimits) =>
  z
    .number({
      error: (iss) =>
        `expected a whole number of ${MODEL_LIMIT_RULES[name].unit}, found ${describeValue(iss.input)}.`,
    })
    .superRefine((value, ctx) => {
      const problem = checkModelLimit(name, value);
      if (problem) ctx.addIssue({ code: "custom", message: `${value} ${problem}.` });
    })
    .optional();

/** The wire protocols a model is spoken to with. */
export const MODEL_PROVIDERS = ["openai", "anthropic"] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

/** How long Anthropic keeps a cached prefix after its last read. */
export const CACHE_TTLS = ["5m", "1h"] as const;

/** Anthropic's replies are capped by `max_tokens`, which the Messages API requires. */
export const ANTHROPIC_MAX_TOKENS = 8_192;
/** The least extended-thinking budget the Messages API takes. */
export const MIN_THINKING_BUDGET = 1_024;
export type CacheTtlSetting = (typeof CACHE_TTLS)[number];

/** The `model:` section: the limits, and whether the model takes images. */
export interface ModelSection extends ModelLimits {
  /**
   * Which protocol the bot's own model speaks. Unset: `openai`, unless only
   * `ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL` are set (then `anthropic`).
   * Read at start: changing it takes a restart.
   */
  readonly provider?: ModelProviderName;
  /** The `cache_control` ttl on Anthropic's breakpoints (unset: 5m); a reload applies. */
  readonly cacheTtl?: CacheTtlSetting;
  /**
   * Anthropic only: extended thinking's token budget (unset: no thinking).
   * Read at start: changing it takes a restart.
   */
  readonly thinkingBudget?: number;
  /**
   * Declared by the operator: images go to the bot's own model as `image_url`
   * parts (the `vision` capability). A model chosen with `/model` follows its
   * own `models:` entry instead.
   */
  readonly vision: boolean;
}

export const DEFAULT_MODEL_SECTION: ModelSection = Object.freeze({
  ...DEFAULT_MODEL_LIMITS,
  vision: false,
});

/** The environment twin of `model.vision`; it wins when set. */
export const MODEL_VISION_ENV = "SWITCHYARD_MODEL_VISION";

/** `SWITCHYARD_MODEL_VISION` as a flag, undefined when unset; anything but true/false/1/0/yes/no is an error message. */
export function visionFromEnv(raw: string | undefined): boolean | string | undefined {
  const value = raw?.trim().toLowerCase();
  if (!value) return undefined;
  if (["true", "1", "yes", "on"].includes(value)) return true;
  if (["false", "0", "no", "off"].includes(value)) return false;
  return `${MODEL_VISION_ENV} must be true or false, not "${raw}". Set it to true when the model takes images, or unset it to use model.vision from the config file.`;
}

const KEYS = [
  ...MODEL_LIMIT_NAMES.map((name) => `${MODEL_LIMIT_RULES[name].key}:`),
  "vision:",
  "provider:",
  "cache_ttl:",
  "thinking_budget:",
].join(", ");

export const providerName = z.enum(MODEL_PROVIDERS, {
  error: (iss) =>
    `expected openai (any OpenAI-compatible server) or anthropic, found ${describeValue(iss.input)}.`,
});

export const cacheTtl = z.enum(CACHE_TTLS, {
  error: (iss) =>
    `expected 5m or 1h (how long Anthropic keeps a cached prefix), found ${describeValue(iss.input)}.`,
});

/** Extended thinking's budget: whole tokens, at least the API's least and below its reply cap. */
export const thinkingBudget = z
  .number({
    error: (iss) =>
      `expected a number of tokens such as 4096 (extended thinking's budget), found ${describeValue(iss.input)}.`,
  })
  .int({ error: "expected a whole number of tokens, e.g. 4096." })
  .min(MIN_THINKING_BUDGET, {
    error: `must be at least ${MIN_THINKING_BUDGET} tokens (the Messages API's least); leave it out for no thinking.`,
  })
  .max(ANTHROPIC_MAX_TOKENS - 1, {
    error: `must be below ${ANTHROPIC_MAX_TOKENS} tokens, the reply cap it is part of; lower it.`,
  });

/** The `model:` section; empty or absent, it is {@link DEFAULT_MODEL_LIMITS}. */
export const modelSection = sectionMap(
  "model",
  {
    ...Object.fromEntries(
      MODEL_LIMIT_NAMES.map((name) => [MODEL_LIMIT_RULES[name].key, limit(name)]),
    ),
    vision: z
      .boolean({
        error: (iss) =>
          `expected true or false (whether the model takes images), found ${describeValue(iss.input)}.`,
      })
      .optional(),
    provider: providerName.optional(),
    cache_ttl: cacheTtl.optional(),
    thinking_budget: thinkingBudget.optional(),
  },
  {
    takes: KEYS,
    note: "(The model's name and address are SWITCHYARD_MODEL and OPENAI_BASE_URL or ANTHROPIC_BASE_URL in the environment.)",
    put: KEYS,
  },
).transform(
  (section): ModelSection =>
    Object.freeze({
      ...(Object.fromEntries(
        MODEL_LIMIT_NAMES.map((name) => [
          name,
          ((section as Record<string, unknown>)[MODEL_LIMIT_RULES[name].key] as
            | number
            | undefined) ?? DEFAULT_MODEL_LIMITS[name],
        ]),
      ) as unknown as ModelLimits),
      vision: (section.vision as boolean | undefined) ?? false,
      ...(section.provider === undefined
        ? {}
        : { provider: section.provider as ModelProviderName }),
      ...(section.cache_ttl === undefined
        ? {}
        : { cacheTtl: section.cache_ttl as CacheTtlSetting }),
      ...(section.thinking_budget === undefined
        ? {}
        : { thinkingBudget: section.thinking_budget as number }),
    }),
);
