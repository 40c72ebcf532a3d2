import { z } from "zod";
import { untrustedText } from "../../core/agent/untrusted-text.ts";
import type { WebSearchConfig } from "../../core/config/web-section.ts";
import { defineTool } from "../../core/tools/tool.ts";
import { WebSearchError } from "./errors.ts";
import { type Environment, type SearchResult, searchProviderFor } from "./search-provider.ts";

/** The capability `web_search` needs: a configured provider with its key. */
export const WEB_SEARCH_CAPABILITY = "web_search";

/** The most text one search hands the model; results past it are dropped whole. */
export const MAX_SEARCH_CHARS = 8_000;
const MAX_TITLE_CHARS = 150;
const MAX_SNIPPET_CHARS = 300;

/**
 * `web_search`: asks the configured provider and answers with numbered
 * results (title, URL, snippet) in compact text. The tool is always in the
 * registry; without a provider its capability is absent, so the floor turns
 * it off with the reason instead of the model finding out by calling it.
 */
export function webSearchTool(config: WebSearchConfig | undefined, env: Environment) {
  const found = searchProviderFor(config, env);
  const maxResults = config?.maxResults ?? 5;
  return defineTool({
    id: "web_search",
    description:
      "Searches the web and returns the top results, each with title, URL and snippet. Use it for recent events, facts you are unsure of, and anything after your training data; read a result in full with fetch_url.",
    parameters: z.object({
      query: z
        .string()
        .trim()
        .min(1)
        .max(400)
        .describe("What to search for, as you would type it into a search engine."),
    }),
    capability: WEB_SEARCH_CAPABILITY,
    execute: async ({ query }, ctx) => {
      if (!("provider" in found)) throw new WebSearchError("none", `${found.reason}.`);
      const results = await found.provider.search({ query, maxResults, signal: ctx.signal });
      return formatResults(query, results);
    },
  });
}

/**
 * Results as the model reads them: numbered, one field a line, markup and
 * runs of whitespace removed, each field cut to size, and at most
 * {@link MAX_SEARCH_CHARS} in all, in one untrusted block. Duplicate URLs are
 * listed once. A URL is never cut (a cut URL is a wrong URL): a result that
 * does not fit is dropped.
 *
 * @example
 * formatResults("rust", [{ title: "Rust", url: "https://rust-lang.org", snippet: "A <b>language</b>" }])
 * // '<untrusted source="web_search rust">\n1. Rust\n   https://rust-lang.org\n   A language\n</untrusted>'
 */
export function formatResults(query: string, results: readonly SearchResult[]): string {
  const blocks: string[] = [];
  const seen = new Set<string>();
  let length = 0;
  let dropped = 0;
  for (const result of results) {
    const url = result.url.trim();
    if (url === "" || seen.has(url)) continue;
    seen.add(url);
    const title = cut(plainText(result.title), MAX_TITLE_CHARS) || url;
    const snippet = cut(plainText(result.snippet), MAX_SNIPPET_CHARS);
    const block = [
      `${blocks.length + 1}. ${title}`,
      `   ${url}`,
      ...(snippet ? [`   ${snippet}`] : []),
    ].join("\n");
    if (length + block.length + 2 > MAX_SEARCH_CHARS) {
      dropped++;
      continue;
    }
    blocks.push(block);
    length += block.length + 2;
  }
  if (blocks.length === 0) {
    return `No results for ${JSON.stringify(query)}. Try other words, or a broader query.`;
  }
  // Titles, URLs and snippets are the sites' words: one untrusted block, named by the query.
  const found = untrustedText(`web_search ${query}`, blocks.join("\n\n"));
  return dropped === 0 ? found : `${found}\n\n[${dropped} more results left out for length]`;
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** Providers put `<strong>` and `&amp;` in titles and snippets; the model wants the words. */
export function plainText(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] !== "#") return ENTITIES[name.toLowerCase()] ?? whole;
      const code =
        name[1] === "x" || name[1] === "X"
          ? Number.parseInt(name.slice(2), 16)
          : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .replace(/\s+/g, " ")
    .trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
