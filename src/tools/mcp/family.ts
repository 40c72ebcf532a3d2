import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { ToolDefinitionError } from "../../core/tools/errors.ts";
import { compareIds } from "../../core/tools/registry.ts";
import { type AnyTool, defineJsonSchemaTool, type ToolOutput } from "../../core/tools/tool.ts";
import { canonicalSchema, capText } from "./canonical-schema.ts";
import { mcpFamily, mcpToolIds } from "./tool-ids.ts";

export interface FamilyOptions {
  readonly server: string;
  /** Ship names only until discovery loads them. */
  readonly defer: boolean;
  readonly descriptionMax: number;
  /** The server's call timeout: the runner waits this long for its tools, not its own default. */
  readonly timeoutMs?: number;
  /** Which tools ask first by default (`approval: ask` or `ask:` in the server's config); unset: none. */
  readonly ask?: "all" | readonly string[];
}

/** Runs a tool of the server by its MCP name; the connection behind it may have changed since listing. */
export type McpCall = (
  name: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<ToolOutput>;

export interface McpFamily {
  /** Sorted by id. */
  readonly tools: readonly AnyTool[];
  /** Tool id -> the server's own tool name. */
  readonly names: ReadonlyMap<string, string>;
  /** Tools left out, each with why (for the log). */
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
  /** Names under the server's `ask:` that it does not list (a typo, or a tool it dropped), for the log. */
  readonly unknownAsk: readonly string[];
}

/**
 * A server's tools/list as Switchyard tools: family and capability
 * `mcp:<server>`, ids from {@link mcpToolIds}, canonical schemas and capped
 * descriptions. Every execute goes through `call`, by the tool's MCP name.
 */
export function mcpFamilyTools(
  listed: readonly McpTool[],
  options: FamilyOptions,
  call: McpCall,
): McpFamily {
  const { server, descriptionMax } = options;
  const family = mcpFamily(server);
  const skipped: { name: string; reason: string }[] = [];
  const callable = listed.filter((tool) => {
    // Such a tool answers only through the experimental tasks API, which a chat turn does not wait on.
    if (tool.execution?.taskSupport !== "required") return true;
    skipped.push({ name: tool.name, reason: "it runs only as an MCP task" });
    return false;
  });
  const ids = mcpToolIds(
    server,
    callable.map((tool) => tool.name),
  );
  const byName = new Map(callable.map((tool) => [tool.name, tool]));
  const tools: AnyTool[] = [];
  const names = new Map<string, string>();
  for (const [name, id] of ids) {
    const tool = byName.get(name);
    if (tool === undefined) continue;
    try {
      tools.push(
        defineJsonSchemaTool({
          id,
          description: capText(describe(tool, server), descriptionMax),
          inputSchema: canonicalSchema(tool.inputSchema, descriptionMax),
          family,
          capability: family,
          defer: options.defer,
          ...(asks(options.ask, name) ? { approval: "ask" as const } : {}),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          execute: (args, ctx) => call(name, args, ctx.signal),
        }),
      );
      names.set(id, name);
    } catch (error) {
      if (!(error instanceof ToolDefinitionError)) throw error;
      skipped.push({ name, reason: error.message });
    }
  }
  tools.sort((a, b) => compareIds(a.id, b.id));
  const listedNames = new Set(listed.map((tool) => tool.name));
  const unknownAsk =
    options.ask === undefined || options.ask === "all"
      ? []
      : options.ask.filter((name) => !listedNames.has(name));
  return { tools, names, skipped, unknownAsk };
}

function asks(ask: FamilyOptions["ask"], name: string): boolean {
  return ask === "all" || ask?.includes(name) === true;
}

/** MCP makes descriptions optional; the model decides from them, so an empty one gets a plain fallback. */
function describe(tool: McpTool, server: string): string {
  const text = tool.description?.trim() || tool.title?.trim() || tool.annotations?.title?.trim();
  return text || `The tool "${tool.name}" of the MCP server ${server}.`;
}
