import type { Capabilities } from "../../core/availability/capabilities.ts";
import type { WebConfig } from "../../core/config/web-section.ts";
import type { AnyTool } from "../../core/tools/tool.ts";
import { fetchUrlTool } from "./fetch-url.ts";
import type { HostLookup } from "./guarded-agent.ts";
import { type Environment, webSearchCapability } from "./search-provider.ts";
import { WEB_SEARCH_CAPABILITY, webSearchTool } from "./web-search.ts";

export interface WebToolDeps {
  /** Where API keys are read from; `process.env` by default. */
  readonly env?: Environment;
  /** Resolves host names for `fetch_url`; `dns.lookup` by default. */
  readonly lookup?: HostLookup;
}

/**
 * The built-in web tools, `web_search` and `fetch_url`, for the `web:`
 * config section. Both are always returned: without a search provider,
 * `web_search` is off at the floor (see {@link webCapabilities}), so
 * `/tools` shows why instead of the tool silently missing.
 *
 * @example
 * const registry = new ToolRegistry([...builtinTools(), ...webTools(config.web)]);
 * const capabilities = { ...webCapabilities(config.web, process.env) };
 */
export function webTools(config: WebConfig, deps: WebToolDeps = {}): AnyTool[] {
  const env = deps.env ?? process.env;
  return [
    webSearchTool(config.search, env),
    fetchUrlTool(config.fetch, deps.lookup === undefined ? {} : { lookup: deps.lookup }),
  ];
}

/**
 * The capabilities the web tools need: `web_search` is available when a
 * provider is configured and its key's variable is set, else absent with
 * "no web search provider configured" or a reason naming the variable.
 */
export function webCapabilities(config: WebConfig, env: Environment): Capabilities {
  return { [WEB_SEARCH_CAPABILITY]: webSearchCapability(config.search, env) };
}

export {
  type AddressKind,
  type AddressPolicy,
  addressPolicy,
  checkAddress,
  classifyAddress,
  PUBLIC_ONLY,
} from "./address-policy.ts";
export { FetchError, FetchRefusedError, WebSearchError } from "./errors.ts";
export { fetchPage, fetchUrlTool, MAX_REDIRECTS } from "./fetch-url.ts";
export {
  guardedAgent,
  type HostLookup,
  type ResolvedAddress,
  systemLookup,
} from "./guarded-agent.ts";
export {
  type Environment,
  NO_PROVIDER,
  type SearchProvider,
  type SearchResult,
  searchProviderFor,
  webSearchCapability,
} from "./search-provider.ts";
export { formatResults, WEB_SEARCH_CAPABILITY, webSearchTool } from "./web-search.ts";
