import { type Provider, ProviderError } from "../core/agent/provider.ts";

export const UNCONFIGURED_MESSAGE =
  "No model is configured. Set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI server) and SWITCHYARD_MODEL, then restart.";

/**
 * The provider a bot runs with when no model is configured: it starts, takes
 * messages and commands, and answers every turn with how to configure one,
 * instead of refusing to start.
 */
export function unconfiguredProvider(): Provider {
  return {
    complete: async () => {
      throw new ProviderError("unconfigured", UNCONFIGURED_MESSAGE);
    },
  };
}
