import type { Provider } from "../core/agent/provider.ts";
import { findModel, type ModelEntry, type ModelsConfig } from "../core/config/index.ts";

/**
 * One provider in front of several servers: a request whose `model` the
 * config lists with a `base_url` or a `provider` goes to a provider for that
 * server (made once per protocol, server and key, on first use), so `/model`
 * can move a conversation between OpenAI-compatible servers and Anthropic;
 * every other request goes to the bot's own. The config is read per request,
 * so a reload applies at once.
 *
 * @example
 * const provider = routeByModel(own, () => config.current.models, (entry) =>
 *   createOpenAIProvider({ baseURL: entry.baseURL, apiKey: env[entry.apiKeyEnv ?? "OPENAI_API_KEY"], model: entry.name }),
 * );
 */
export function routeByModel(
  own: Provider,
  models: () => ModelsConfig,
  make: (entry: ModelEntry) => Provider,
): Provider {
  const made = new Map<string, Provider>();
  return {
    complete(request) {
      const entry = request.model === undefined ? undefined : findModel(models(), request.model);
      if (entry === undefined || (entry.baseURL === undefined && entry.provider === undefined)) {
        return own.complete(request);
      }
      const key = `${entry.provider ?? ""}|${entry.baseURL ?? ""}|${entry.apiKeyEnv ?? ""}|${entry.cacheTtl ?? ""}|${entry.thinkingBudget ?? ""}`;
      let provider = made.get(key);
      if (!provider) {
        provider = make(entry);
        made.set(key, provider);
      }
      return provider.complete(request);
    },
  };
}
