import { z } from "zod";
import type { ConversationAddress } from "../conversation.ts";
import { describeValue } from "./errors.ts";
import {
  type CacheTtlSetting,
  cacheTtl,
  type ModelProviderName,
  providerName,
  thinkingBudget,
} from "./model-section.ts";
import { placeOverrides } from "./place-map.ts";
import { sectionMap } from "./section-map.ts";

/** What one million tokens of each kind costs, in the operator's currency (USD by convention). */
export interface ModelPrice {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
  /** A token written to Anthropic's prompt cache; unset: 1.25 times `input` (the 5-minute price). */
  readonly cacheWrite?: number;
}

/** One model people may switch to with `/model`. */
export interface ModelEntry {
  /** The name sent in the request's `model` field. */
  readonly name: string;
  /** Another server for this model; unset: the provider's own (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`). */
  readonly baseURL?: string;
  /** The environment variable holding that server's API key; unset: `OPENAI_API_KEY` (`ANTHROPIC_API_KEY` for anthropic). */
  readonly apiKeyEnv?: string;
  /** The protocol this model speaks; unset: the bot's own model's. */
  readonly provider?: ModelProviderName;
  /** Anthropic only: the ttl of its cache breakpoints; unset: `model.cache_ttl`. */
  readonly cacheTtl?: CacheTtlSetting;
  /** Anthropic only: extended thinking's token budget; unset: `model.thinking_budget`. */
  readonly thinkingBudget?: number;
  /**
   * Models of this list that take a step this one failed (rate limit, server
   * error, overloaded, timeout) before any text reached the person, in order.
   */
  readonly fallback?: readonly string[];
  readonly price?: ModelPrice;
  /** What the model can do beyond text, e.g. `{ vision: true }`: a turn on this model sees images. */
  readonly capabilities: Readonly<Record<string, boolean>>;
}

/**
 * The models a conversation may use, and which one each workspace and
 * channel starts with. The bot's own model (`SWITCHYARD_MODEL`) is used
 * where nothing else is chosen.
 *
 * ```yaml
 * models:
 *   list:
 *     - name: gpt-4.1-mini
 *       price: { input: 0.40, cached: 0.10, output: 1.60 }   # per million tokens
 *     - name: gpt-4.1
 *       base_url: https://openrouter.ai/api/v1                # optional: another server,
 *       api_key_env: OPENROUTER_API_KEY                       # and the variable with its key
 *       price: { input: 2.00, cached: 0.50, output: 8.00 }
 *       capabilities: { vision: true }
 *     - name: claude-sonnet-4-6
 *       provider: anthropic                                   # the Messages API, ANTHROPIC_API_KEY
 *       cache_ttl: 1h                                         # optional: 5m (default) or 1h
 *       thinking_budget: 4096                                 # optional: extended thinking (Anthropic)
 *       fallback: [gpt-4.1]                                   # when it fails before answering
 *   workspaces: { "slack:T0123": gpt-4.1 }                    # platform:workspace id
 *   channels: { "telegram:-1001234": gpt-4.1-mini }           # platform:channel id, deepest wins
 * ```
 */
export interface ModelsConfig {
  readonly list: readonly ModelEntry[];
  readonly workspaces: Readonly<Record<string, string>>;
  readonly channels: Readonly<Record<string, string>>;
}

export const DEFAULT_MODELS: ModelsConfig = Object.freeze({
  list: Object.freeze([]) as readonly ModelEntry[],
  workspaces: Object.freeze({}),
  channels: Object.freeze({}),
});

/** The model entry of that name, if the config lists it. */
export function findModel(config: ModelsConfig, name: string): ModelEntry | undefined {
  return config.list.find((m) => m.name === name);
}

/**
 * The model a conversation's next request names: chosen in chat (the
 * conversation's, else its channel's), else the config's channel, else its
 * workspace; undefined means the bot's own model. A stored choice the list
 * no longer has is skipped, so editing the list never strands a conversation.
 */
export function modelFor(
  config: ModelsConfig,
  address: Pick<ConversationAddress, "platform" | "workspace" | "channel">,
  chosen: readonly (string | undefined)[] = [],
): string | undefined {
  const own = (map: Readonly<Record<string, string>>, key: string) =>
    Object.hasOwn(map, key) ? map[key] : undefined;
  const candidates = [
    ...chosen,
    own(config.channels, `${address.platform}:${address.channel}`),
    own(config.workspaces, `${address.platform}:${address.workspace}`),
  ];
  return candidates.find((name) => name !== undefined && findModel(config, name) !== undefined);
}

const price = (what: string) =>
  z
    .number({
      error: (iss) =>
        `expected the price of a million ${what} tokens as a number, e.g. 0.4, found ${describeValue(iss.input)}.`,
    })
    .min(0, { error: "a price cannot be negative." })
    .max(100_000, { error: "must be at most 100000 per million tokens." });

const priceSection = z.strictObject(
  {
    input: price("input"),
    cached: price("cached").optional(),
    output: price("output"),
    cache_write: price("cache write").optional(),
  },
  {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown key ${JSON.stringify(iss.keys[0])}. A price takes input:, cached:, output: and cache_write: (per million tokens).`
        : `expected { input:, cached:, output: } per million tokens, found ${describeValue(iss.input)}.`,
  },
);

const modelName = z
  .string({ error: (iss) => `expected a model name, found ${describeValue(iss.input)}.` })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/, {
    error: (iss) =>
      `${describeValue(iss.input)} is not a model name: use letters, digits and . _ : / @ -, e.g. gpt-4.1-mini.`,
  });

const entry = z.strictObject(
  {
    name: modelName,
    base_url: z
      .url({
        protocol: /^https?$/,
        error: (iss) =>
          `expected an http(s) URL such as https://api.openai.com/v1, found ${describeValue(iss.input)}.`,
      })
      .optional(),
    api_key_env: z
      .string({ error: (iss) => `expected a variable name, found ${describeValue(iss.input)}.` })
      .regex(/^[A-Z_][A-Z0-9_]{0,127}$/, {
        error: (iss) =>
          `${describeValue(iss.input)} is not an environment variable name: write it in capitals, e.g. OPENROUTER_API_KEY (the key itself stays in the environment).`,
      })
      .optional(),
    provider: providerName.optional(),
    cache_ttl: cacheTtl.optional(),
    thinking_budget: thinkingBudget.optional(),
    fallback: z
      .array(modelName, {
        error: (iss) =>
          `expected a list of model names to fall back to, e.g. [gpt-4.1], found ${describeValue(iss.input)}.`,
      })
      .optional(),
    price: priceSection.optional(),
    capabilities: z
      .record(z.string(), z.boolean(), {
        error: (iss) =>
          `expected a map of capabilities to true/false, e.g. { vision: true }, found ${describeValue(iss.input)}.`,
      })
      .default({}),
  },
  {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown key ${JSON.stringify(iss.keys[0])}. A model takes name:, base_url:, api_key_env:, provider:, cache_ttl:, thinking_budget:, fallback:, price: and capabilities:.`
        : `expected a model, e.g. { name: gpt-4.1-mini }, found ${describeValue(iss.input)}.`,
  },
);

export const modelsSection = sectionMap("models", {
  list: z
    .array(entry, {
      error: (iss) =>
        `expected a list of models, e.g. [{ name: gpt-4.1-mini }], found ${describeValue(iss.input)}.`,
    })
    .default([]),
  ...placeOverrides(modelName, "model names"),
})
  .superRefine((section, ctx) => {
    const names = new Set<string>();
    section.list.forEach((m, i) => {
      if (names.has(m.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["list", i, "name"],
          message: `${m.name} is listed twice; keep one entry per model.`,
        });
      }
      names.add(m.name);
    });
    section.list.forEach((m, i) => {
      (m.fallback ?? []).forEach((name, j) => {
        if (name === m.name || !names.has(name)) {
          ctx.addIssue({
            code: "custom",
            path: ["list", i, "fallback", j],
            message:
              name === m.name
                ? `${name} cannot fall back to itself; name another model of models.list.`
                : `${name} is not in models.list; add it there to fall back to it.`,
          });
        }
      });
    });
    for (const kind of ["workspaces", "channels"] as const) {
      for (const [where, name] of Object.entries(section[kind])) {
        if (names.has(name)) continue;
        ctx.addIssue({
          code: "custom",
          path: [kind, where],
          message: `${name} is not in models.list; add it there, or choose one of: ${[...names].join(", ") || "(the list is empty)"}.`,
        });
      }
    }
  })
  .transform(
    (section): ModelsConfig =>
      Object.freeze({
        list: Object.freeze(
          section.list.map(
            (m): ModelEntry =>
              Object.freeze({
                name: m.name,
                ...(m.base_url !== undefined ? { baseURL: m.base_url } : {}),
                ...(m.api_key_env !== undefined ? { apiKeyEnv: m.api_key_env } : {}),
                ...(m.provider !== undefined ? { provider: m.provider } : {}),
                ...(m.cache_ttl !== undefined ? { cacheTtl: m.cache_ttl } : {}),
                ...(m.thinking_budget !== undefined ? { thinkingBudget: m.thinking_budget } : {}),
                ...(m.fallback !== undefined && m.fallback.length > 0
                  ? { fallback: Object.freeze([...m.fallback]) }
                  : {}),
                ...(m.price !== undefined
                  ? {
                      price: Object.freeze({
                        input: m.price.input,
                        cached: m.price.cached ?? m.price.input,
                        output: m.price.output,
                        ...(m.price.cache_write !== undefined
                          ? { cacheWrite: m.price.cache_write }
                          : {}),
                      }),
                    }
                  : {}),
                capabilities: Object.freeze({ ...m.capabilities }),
              }),
          ),
        ),
        workspaces: Object.freeze({ ...section.workspaces }),
        channels: Object.freeze({ ...section.channels }),
      }),
  );
