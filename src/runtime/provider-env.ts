import type { Provider } from "../core/agent/provider.ts";
import {
  botModelOf,
  type CacheTtlSetting,
  checkModelLimit,
  DEFAULT_MODEL_LIMITS,
  MODEL_LIMIT_NAMES,
  MODEL_LIMIT_RULES,
  type ModelEntry,
  type ModelLimits,
  type ModelProviderName,
  type ModelsConfig,
  type SwitchyardConfig,
} from "../core/config/index.ts";
import type { LoggerPort } from "../core/logger.ts";
import { registerSecret } from "../observability/logger.ts";
import {
  ANTHROPIC_FALLBACK_MODEL,
  createAnthropicProvider,
} from "../providers/anthropic/provider.ts";
import { type FallbackEvent, withFallback } from "../providers/fallback.ts";
import { routeByModel } from "../providers/model-router.ts";
import { createOpenAIProvider } from "../providers/openai.ts";
import {
  isUnconfigured,
  markUnconfigured,
  UNCONFIGURED_ANTHROPIC_MESSAGE,
  unconfiguredProvider,
} from "../providers/unconfigured.ts";
import { openAITranscriber, type Transcriber } from "../tools/attachments/index.ts";
import { StartOptionError } from "./errors.ts";

/** The `model:` settings the provider reads: its limits, and (when set) its protocol and cache ttl. */
export type ConfiguredModel = ModelLimits & {
  readonly provider?: ModelProviderName | undefined;
  readonly cacheTtl?: CacheTtlSetting | undefined;
  readonly thinkingBudget?: number | undefined;
};

/** Whether the environment names an OpenAI-compatible server (a key or a base URL). */
function openAIConfiguredIn(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
}

/** Whether the environment names an Anthropic server (a key or a base URL). */
function anthropicConfiguredIn(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.ANTHROPIC_API_KEY || env.ANTHROPIC_BASE_URL);
}

/**
 * The protocol the bot's own model speaks: `model.provider` when set, else
 * `anthropic` when only Anthropic's variables are set, else `openai`.
 */
export function providerNameOf(
  env: NodeJS.ProcessEnv,
  chosen?: ModelProviderName,
): ModelProviderName {
  if (chosen) return chosen;
  return anthropicConfiguredIn(env) && !openAIConfiguredIn(env) ? "anthropic" : "openai";
}

/** Whether the environment names a model server at all (a key or a base URL), for `provider` when given. */
export function modelConfiguredIn(env: NodeJS.ProcessEnv, provider?: ModelProviderName): boolean {
  if (provider === "anthropic") return anthropicConfiguredIn(env);
  if (provider === "openai") return openAIConfiguredIn(env);
  return openAIConfiguredIn(env) || anthropicConfiguredIn(env);
}

/**
 * The model from the environment. Its timeouts and caps are the config
 * file's `model:` section (read on every call, so a reload applies), with any
 * `SWITCHYARD_MODEL_*` variable winning over its key; `model.provider` (read
 * now) says whether it is an OpenAI-compatible server (`OPENAI_API_KEY`,
 * `OPENAI_BASE_URL`) or Anthropic's Messages API (`ANTHROPIC_API_KEY`,
 * `ANTHROPIC_BASE_URL`). With `models`, a request for a listed model with a
 * `base_url` or a `provider` goes to that server, with the key from its
 * `api_key_env` (default `OPENAI_API_KEY`, or `ANTHROPIC_API_KEY`); an entry's
 * `fallback:` chain takes a step it failed before answering (`onFallback`
 * hears of each move, for the metric).
 */
export function providerFromEnv(
  env: NodeJS.ProcessEnv,
  logger: LoggerPort,
  configured: () => ConfiguredModel = () => DEFAULT_MODEL_LIMITS,
  models?: () => ModelsConfig,
  onFallback?: (event: FallbackEvent) => void,
): Provider {
  // Checked even without a model: a typo must fail now, not once a key is added.
  const overrides = modelLimitsFromEnv(env);
  const limits = () => ({ ...configured(), ...overrides });
  const kind = providerNameOf(env, configured().provider);
  const make = (entry: Omit<ModelEntry, "capabilities">): Provider => {
    const provider = entry.provider ?? kind;
    const keyEnv =
      entry.apiKeyEnv ?? (provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
    const apiKey = env[keyEnv];
    if (apiKey) registerSecret(apiKey);
    const baseURL =
      entry.baseURL ?? (provider === "anthropic" ? env.ANTHROPIC_BASE_URL : env.OPENAI_BASE_URL);
    const common = {
      ...(apiKey ? { apiKey } : {}),
      ...(baseURL ? { baseURL } : {}),
      model: entry.name,
      limits,
      logger,
    };
    if (provider === "openai") return createOpenAIProvider(common);
    return createAnthropicProvider({
      ...common,
      cacheTtl: () => entry.cacheTtl ?? configured().cacheTtl,
      ...thinkingOf(entry.thinkingBudget ?? configured().thinkingBudget),
    });
  };
  const ownModel =
    kind === "anthropic" && !env.SWITCHYARD_MODEL?.trim()
      ? ANTHROPIC_FALLBACK_MODEL
      : botModelOf(env);
  const own = !modelConfiguredIn(env, kind)
    ? unconfiguredProvider(kind === "anthropic" ? UNCONFIGURED_ANTHROPIC_MESSAGE : undefined)
    : make({ name: ownModel, provider: kind });
  if (!models) return own;
  const routed = withFallback(routeByModel(own, models, make), models, {
    ownModel,
    ownProvider: kind,
    logger,
    ...(onFallback ? { onFallback } : {}),
  });
  return isUnconfigured(own) ? markUnconfigured(routed) : routed;
}

/** Extended thinking's option, when a budget is set (`thinking_budget`, read as the provider is made). */
function thinkingOf(budget: number | undefined): { thinkingBudget?: number } {
  return budget === undefined ? {} : { thinkingBudget: budget };
}

/** The `SWITCHYARD_MODEL_*` timeouts and caps that are set; a bad one is a {@link StartOptionError}. */
export function modelLimitsFromEnv(env: NodeJS.ProcessEnv): Partial<ModelLimits> {
  const limits: Partial<Record<keyof ModelLimits, number>> = {};
  for (const name of MODEL_LIMIT_NAMES) {
    const { env: variable, key } = MODEL_LIMIT_RULES[name];
    const raw = env[variable]?.trim();
    if (!raw) continue;
    const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    const problem = checkModelLimit(name, value);
    if (problem) {
      throw new StartOptionError(
        `${variable} ${problem}, not "${raw}". Fix it, or unset it to use model.${key} from the config file (default ${DEFAULT_MODEL_LIMITS[name]}).`,
      );
    }
    limits[name] = value;
  }
  return limits;
}

/** The transcriber when `transcription:` is configured with its key; the key is redacted from logs. */
export function transcriberFromEnv(
  config: SwitchyardConfig,
  env: Readonly<Record<string, string | undefined>>,
): Transcriber | undefined {
  const key = env[config.transcription.keyEnv];
  if (key) registerSecret(key);
  return openAITranscriber(
    config.transcription,
    env as NodeJS.ProcessEnv,
    config.attachments.fetchMs,
  );
}
