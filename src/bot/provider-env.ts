import type { Provider } from "../core/agent/provider.ts";
import {
  checkModelLimit,
  DEFAULT_MODEL_LIMITS,
  MODEL_LIMIT_NAMES,
  MODEL_LIMIT_RULES,
  type ModelLimits,
} from "../core/config/index.ts";
import type { LoggerPort } from "../core/logger.ts";
import { createOpenAIProvider } from "../providers/openai.ts";
import { unconfiguredProvider } from "../providers/unconfigured.ts";
import { StartOptionError } from "./errors.ts";

/**
 * The model from the environment. Its timeouts and caps are the config
 * file's `model:` section (read on every call, so a reload applies), with any
 * `SWITCHYARD_MODEL_*` variable winning over its key.
 */
export function providerFromEnv(
  env: NodeJS.ProcessEnv,
  logger: LoggerPort,
  configured: () => ModelLimits = () => DEFAULT_MODEL_LIMITS,
): Provider {
  // Checked even without a model: a typo must fail now, not once a key is added.
  const overrides = modelLimitsFromEnv(env);
  if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL) return unconfiguredProvider();
  return createOpenAIProvider({
    ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    model: env.SWITCHYARD_MODEL ?? "gpt-4.1-mini",
    limits: () => ({ ...configured(), ...overrides }),
    logger,
  });
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
