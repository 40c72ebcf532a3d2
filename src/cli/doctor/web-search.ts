import { searchProviderFor } from "../../tools/web/search-provider.ts";
import { type DoctorContext, type Finding, ok, problem, reasonOf, within } from "./finding.ts";

/** The configured web search provider answers one small query. */
export async function checkWebSearch(context: DoctorContext): Promise<Finding[]> {
  const { env, config, timeoutMs } = context;
  const search = config.web.search;
  if (search === undefined)
    return [ok("search", "no web search provider configured: web_search is off")];
  const found = searchProviderFor(search, env);
  if (!("provider" in found)) {
    return [
      problem(
        "search",
        `web_search is off: ${found.reason}`,
        "set what it names, or remove web.search",
      ),
    ];
  }
  const { provider } = found;
  try {
    const results = await within(
      timeoutMs,
      provider.label,
      provider.search({
        query: "switchyard",
        maxResults: 1,
        signal: AbortSignal.timeout(timeoutMs),
      }),
    );
    return [
      ok("search", `${provider.label} answers (${results.length} result(s) for a test query)`),
    ];
  } catch (error) {
    return [
      problem(
        "search",
        `${provider.label} failed a test query: ${reasonOf(error)}`,
        "check web.search in the config file (url) and the API key variable",
      ),
    ];
  }
}
