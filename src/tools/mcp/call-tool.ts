import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { untrustedText } from "../../core/agent/untrusted-text.ts";
import { canonicalJson } from "../../core/tools/canonical-json.ts";
import type { ToolOutput } from "../../core/tools/tool.ts";
import { toolResult } from "../../core/tools/tool-result.ts";
import { errorLine } from "./error-line.ts";
import { McpCallError, McpToolError } from "./errors.ts";
import { mcpResultFiles } from "./result-files.ts";
import { mcpResultText } from "./result-text.ts";

export interface CallOptions {
  readonly server: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** Why the server went away, when the call failed because it did. */
  readonly lostReason: () => string | undefined;
}

/**
 * Calls one tool and returns its result as untrusted text, with its images
 * and blob resources as the result's files (sent with the answer). The call ends at the
 * timeout or when `signal` aborts, whichever comes first, and the server is
 * sent a cancellation either way. An `isError` result throws
 * {@link McpToolError}; anything else that goes wrong throws
 * {@link McpCallError}. The tool runner turns both into the call's result.
 */
export async function callMcpTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<ToolOutput> {
  const { server, signal, timeoutMs } = options;
  if (signal.aborted) {
    throw new McpCallError(server, name, `the call to ${name} was cancelled before it started`);
  }
  let result: Awaited<ReturnType<Client["callTool"]>>;
  try {
    result = await client.callTool({ name, arguments: args }, undefined, {
      signal,
      timeout: timeoutMs,
    });
  } catch (error) {
    throw callError(error, name, options);
  }
  // What the server answers is untrusted text, named by server and tool; its errors stay ours.
  const source = `MCP server ${server}, tool ${name}`;
  // The compatibility shape (`toolResult`, from before `content`) is passed on as JSON.
  if (!isContentResult(result)) {
    return untrustedText(source, canonicalJson(result.toolResult ?? null));
  }
  const text = mcpResultText(result);
  if (result.isError === true) throw new McpToolError(server, name, text);
  const files = mcpResultFiles(result);
  const block = untrustedText(source, text);
  return files.length > 0 ? toolResult(block, files) : block;
}

function callError(error: unknown, name: string, options: CallOptions): McpCallError {
  const { server, signal, timeoutMs } = options;
  const make = (message: string) => new McpCallError(server, name, message, { cause: error });
  // An abort reaches us as a "timeout" McpError too; the signal tells them apart.
  if (signal.aborted) return make(`the call to ${name} was cancelled`);
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return make(
      `the MCP server ${server} did not answer ${name} within ${seconds(timeoutMs)} (mcp.call_timeout_ms), so the call was cancelled. Try again later or do without it`,
    );
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    const why = options.lostReason();
    return make(
      `the MCP server ${server} went away during the call${why ? ` (${why})` : ""}. It reconnects by itself; try again in a moment`,
    );
  }
  if (error instanceof McpError) {
    return make(`the MCP server ${server} refused the call to ${name}: ${errorLine(error)}`);
  }
  return make(`the call to ${name} on the MCP server ${server} failed: ${errorLine(error)}`);
}

function isContentResult(result: Readonly<Record<string, unknown>>): result is CallToolResult {
  return Array.isArray(result.content);
}

function seconds(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Math.round(ms / 1_000)} s`;
}
