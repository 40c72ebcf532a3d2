import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { McpListError } from "./errors.ts";

/** A server listing more pages than this is broken or hostile; a family of thousands helps no model. */
const MAX_PAGES = 100;

/**
 * Every tool a server lists, following `nextCursor` page by page. A cursor
 * seen twice would loop forever, so it is an error rather than a hang.
 */
export async function listAllTools(
  client: Client,
  server: string,
  timeoutMs: number,
): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
      timeout: timeoutMs,
    });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined || cursor === "") return tools;
    if (seen.has(cursor)) {
      throw new McpListError(
        `MCP server ${server} sent the tools/list cursor ${JSON.stringify(cursor.slice(0, 40))} twice, so its list never ends. Its pagination is broken: report it to the server's authors.`,
      );
    }
    seen.add(cursor);
  }
  throw new McpListError(
    `MCP server ${server} lists tools in more than ${MAX_PAGES} pages. Its pagination is probably broken: report it to the server's authors.`,
  );
}
