import { type Provider, ProviderError } from "../core/agent/provider.ts";

export const UNCONFIGURED_MESSAGE =
  "No model is configured. Set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server) and SWITCHYARD_MODEL, then restart.";

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
export function unconfiguredProvider(): Provider {
  return markUnconfigured({
    complete: async () => {
      throw new ProviderError("unconfigured", UNCONFIGURED_MESSAGE);
    },
  });
}
