/**
 * What an MCP connection needs of the SDK, in one module that connection.ts
 * imports at a server's first connection: the SDK takes some 0.2 s to import,
 * and a bot without MCP servers never needs it.
 */
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
export { callMcpTool } from "./call-tool.ts";
export { errorLine } from "./error-line.ts";
export { openTransport } from "./transport.ts";
