/**
 * MCP servers as tool families: each configured server's tools join the
 * registry as `mcp__<server>__<tool>` in the family `mcp:<server>`, gated by
 * the capability `mcp:<server>` while the server is connected.
 */
export { type BackoffPolicy, backoffDelay } from "./backoff.ts";
export { canonicalSchema, capText } from "./canonical-schema.ts";
export type { McpLogger, McpTimers } from "./connection.ts";
export { McpCallError, McpListError, McpServerConfigError, McpToolError } from "./errors.ts";
export { type McpFamily, mcpFamilyTools } from "./family.ts";
export { McpHub, type McpHubListener, type McpHubOptions } from "./hub.ts";
export { mcpResultText, type ResultTextOptions } from "./result-text.ts";
export { capabilityOf, type McpServerState } from "./server-state.ts";
export { mcpFamily, mcpIdPrefix, mcpToolId, mcpToolIds } from "./tool-ids.ts";
