import { z } from "zod";
import type { ToolRegistry } from "../tools/registry.ts";
import { digestOf, type JsonSchema, wireOf } from "../tools/tool.ts";
import { rankTools } from "./search.ts";

/**
 * The discovery tool. It has no availability key (it exists exactly when the
 * mode defers something and allows discovery), is never deferred, and its
 * bytes never change, so it sits in the cached prefix like any other tool.
 */
export const TOOL_SEARCH_ID = "tool_search";

const DESCRIPTION =
  "Find and load tools that are available but not loaded yet; their names are listed under Deferred tools. " +
  "Call with no arguments to list them with a one-line summary each, with `query` to search them by name and description, " +
  'and with `load` to load named tools, e.g. {"load":["calendar_create"]}. Loaded tools can be called from your next step on.';

export const toolSearchParameters = z.object({
  query: z.string().optional().describe("Words describing the tool you need."),
  load: z
    .array(z.string())
    .optional()
    .describe("Exact names of deferred tools to load for the rest of this conversation."),
});

export type ToolSearchArgs = z.output<typeof toolSearchParameters>;

const SCHEMA = (() => {
  const { $schema: _dropped, ...rest } = z.toJSONSchema(toolSearchParameters, {
    io: "input",
  }) as Record<string, unknown>;
  return rest as JsonSchema;
})();

export const TOOL_SEARCH_WIRE = wireOf(TOOL_SEARCH_ID, DESCRIPTION, SCHEMA);
export const TOOL_SEARCH_DIGEST = digestOf(TOOL_SEARCH_WIRE);

/** The first sentence of a description, capped: what `tool_search` shows per tool. */
export function summaryOf(description: string, max = 120): string {
  const line = description.trim().split(/\n/)[0] ?? "";
  const sentence = line.match(/^.*?[.!?](\s|$)/)?.[0]?.trim() ?? line;
  return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1).trimEnd()}…`;
}

/** The listing or search part of a `tool_search` answer (loading is the loop's job). */
export function describeDeferred(
  registry: ToolRegistry,
  deferred: readonly string[],
  query: string | undefined,
): string {
  if (deferred.length === 0)
    return "No tools are waiting to be loaded: every available tool is already loaded.";
  const line = (id: string) => `- ${id}: ${summaryOf(registry.get(id)?.description ?? "")}`;
  if (query === undefined || query.trim() === "") {
    return [`${deferred.length} deferred tools:`, ...deferred.map(line)].join("\n");
  }
  const docs = deferred.map((id) => ({ id, text: registry.get(id)?.description ?? "" }));
  const hits = rankTools(docs, query);
  if (hits.length === 0) {
    return `No deferred tool matches ${JSON.stringify(query)}. Call tool_search with no arguments to list all ${deferred.length}.`;
  }
  return [
    `Deferred tools matching ${JSON.stringify(query)}, best first:`,
    ...hits.map((h) => line(h.id)),
  ].join("\n");
}
