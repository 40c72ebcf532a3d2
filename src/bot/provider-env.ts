import type { Provider } from "../core/agent/provider.ts";
import {
  botModelOf,
  checkModelLimit,
  DEFAULT_MODEL_LIMITS,
  MODEL_LIMIT_NAMES,
  MODEL_LIMIT_RULES,
  type ModelLimits,
  type ModelsConfig,
} from "../core/config/index.ts";
import type { LoggerPort } from "../core/logger.ts";
import { registerSecret } from "../observability/logger.ts";
import { routeByModel } from "../providers/model-router.ts";
import { createOpenAIProvider } from "../providers/openai.ts";
import {
  isUnconfigured,
  markUnconfigured,
  unconfiguredProvider,
} from "../providers/unconfigured.ts";
import { StartOptionError } from "./errors.ts";

/** Whether the environment names a model server at all (a key or a base URL). */
export function modelConfiguredIn(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
}

/**
 * The model from the environment. Its timeouts and caps are the config
 * file's `model:` section (read on every call, so a reload applies), with any
 * `SWITCHYARD_MODEL_*` variable winning over its key. With `models`, a
 * request for a listed model with a `base_url` goes to that server, with the
 * key from its `api_key_env` (default `OPENAI_API_KEY`).
 */
export function providerFromEnv(
  env: NodeJS.ProcessEnv,
  logger: LoggerPort,
  configured: () => ModelLimits = () => DEFAULT_MODEL_LIMITS,
  models?: () => ModelsConfig,
): Provider {
  // Checked even without a model: a typo must fail now, not once a key is added.
  const overrides = modelLimitsFromEnv(env);
  const limits = () => ({ ...configured(), ...overrides });
  const own = !modelConfiguredIn(env)
    ? unconfiguredProvider()
    : createOpenAIProvider({
        ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
        ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
        model: botModelOf(env),
        limits,
        logger,
      });
  if (!models) return own;
  const routed = routeByModel(own, models, (entry) => {
    const apiKey = env[entry.apiKeyEnv ?? "OPENAI_API_KEY"];
    if (apiKey) registerSecret(apiKey);
    return createOpenAIProvider({
      ...(apiKey ? { apiKey } : {}),
      baseURL: entry.baseURL,
      model: entry.name,
      limits,
      logger,
    });
  });
  return isUnconfigured(own) ? markUnconfigured(routed) : routed;
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
