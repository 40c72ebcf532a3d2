import { type Provider, ProviderError } from "../core/agent/provider.ts";

export const UNCONFIGURED_MESSAGE =
  "No model is configured. Set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server) and SWITCHYARD_MODEL, or ANTHROPIC_API_KEY for Claude, then restart.";

/** The answer when `model.provider: anthropic` is chosen and Anthropic's variables are not set. */
export const UNCONFIGURED_ANTHROPIC_MESSAGE =
  "No model is configured: model.provider is anthropic, but ANTHROPIC_API_KEY is not set. Set it (and SWITCHYARD_MODEL, e.g. claude-sonnet-4-6), then restart.";

const unconfigured = new WeakSet<Provider>();

/**
 * Marks `provider` as one whose own model is not configured (it may still
 * route to models of the config's `models:` list), so `/tools` can say "no
 * model is configured" instead of naming a model nobody set.
 */
export function markUnconfigured(provider: Provider): Provider {
  unconfigured.add(provider);
  return provider;
}

/** Whether the bot's own model behind `provider` is not configured. */
export function isUnconfigured(provider: Provider): boolean {
  return unconfigured.has(provider);
}

/**
 * The provider a bot runs with when no model is configured: it starts, takes
 * messages and commands, and answers every turn with how to configure one,
 * instead of refusing to start.
 */
export function unconfiguredProvider(message: string = UNCONFIGURED_MESSAGE): Provider {
  return markUnconfigured({
    complete: async () => {
      throw new ProviderError("unconfigured", message);
    },
  });
}
