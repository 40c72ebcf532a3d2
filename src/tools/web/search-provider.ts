import type { CapabilityStatus } from "../../core/availability/capabilities.ts";
import { DEFAULT_KEY_ENV, type WebSearchConfig } from "../../core/config/web-section.ts";
import { braveProvider } from "./brave.ts";
import type { SearchProvider } from "./search-types.ts";
import { searxngProvider } from "./searxng.ts";
import { tavilyProvider } from "./tavily.ts";

export type { SearchProvider, SearchRequest, SearchResult } from "./search-types.ts";

export type Environment = Readonly<Record<string, string | undefined>>;

/** The reason `web_search` is off when no `web.search` section is configured. */
export const NO_PROVIDER = "no web search provider configured";

const LABELS: Readonly<Record<WebSearchConfig["provider"], string>> = {
  searxng: "SearxNG",
  brave: "Brave Search",
  tavily: "Tavily",
};

/**
 * The configured provider, or why there is none. The capability status and
 * the tool both come from here, so the floor says "off" exactly when the tool
 * could not search. The key is read from the environment variable the config
 * names, and only ever goes into a request header.
 */
export function searchProviderFor(
  config: WebSearchConfig | undefined,
  env: Environment,
): { readonly provider: SearchProvider } | { readonly reason: string } {
  if (config === undefined) return { reason: NO_PROVIDER };
  const timeoutMs = config.timeoutMs;
  if (config.provider === "searxng") {
    if (config.url === undefined) return { reason: "SearxNG is configured without a url" };
    return { provider: searxngProvider({ url: config.url, timeoutMs }) };
  }
  const keyEnv = config.apiKeyEnv ?? DEFAULT_KEY_ENV[config.provider];
  const apiKey = env[keyEnv];
  if (apiKey === undefined || apiKey.trim() === "") {
    return {
      reason: `the ${keyEnv} environment variable is not set (web search is configured for ${LABELS[config.provider]}, which needs its API key there)`,
    };
  }
  const settings = {
    apiKey: apiKey.trim(),
    timeoutMs,
    keyEnv,
    ...(config.url === undefined ? {} : { url: config.url }),
  };
  return {
    provider: config.provider === "brave" ? braveProvider(settings) : tavilyProvider(settings),
  };
}

/** The `web_search` capability: available when a provider is configured and has its key. */
export function webSearchCapability(
  config: WebSearchConfig | undefined,
  env: Environment,
): CapabilityStatus {
  const found = searchProviderFor(config, env);
  return "provider" in found ? { available: true } : { available: false, reason: found.reason };
}
