import { z } from "zod";
import { describeValue } from "./errors.ts";
import { type McpServerConfig, mcpServersSection, millis } from "./mcp-servers-section.ts";
import { sectionMap } from "./section-map.ts";

export {
  isMcpServerName,
  MCP_SERVER_NAME_RULE,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
} from "./mcp-servers-section.ts";

/**
 * The MCP servers this bot uses. Each becomes the tool family `mcp:<server>`
 * (tools `mcp__<server>__<tool>`), switched like any key in `tools:`.
 *
 * ```yaml
 * mcp:
 *   servers:
 *     filesystem:                     # a local server, spoken to over stdio
 *       command: npx
 *       args: [-y, "@modelcontextprotocol/server-filesystem", /srv/shared]
 *       env: { LOG_LEVEL: warn }
 *     github:                         # a remote server, over streamable HTTP
 *       url: https://api.githubcopilot.com/mcp/
 *       headers: { Authorization: "Bearer ${GITHUB_TOKEN}" }
 *       defer: false                  # ship full schemas, not just names
 *   call_timeout_ms: 60000
 *   description_max: 1024
 * ```
 *
 * `${NAME}` in `env:`, `headers:` and `url:` values is read from the
 * environment when the server connects, so secrets stay out of the file.
 */
export interface McpConfig {
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  /** How long one tool call may take before it is cancelled. */
  readonly callTimeoutMs: number;
  /** How long connecting (spawn or HTTP, then the MCP handshake and tools/list) may take. */
  readonly connectTimeoutMs: number;
  /** Tool and parameter descriptions longer than this are cut with an ellipsis. */
  readonly descriptionMax: number;
  /** Reconnect delays: doubling from `baseMs` up to `maxMs`. */
  readonly reconnect: { readonly baseMs: number; readonly maxMs: number };
}

export const DEFAULT_MCP: McpConfig = Object.freeze({
  servers: Object.freeze({}),
  callTimeoutMs: 60_000,
  connectTimeoutMs: 30_000,
  descriptionMax: 1_024,
  reconnect: Object.freeze({ baseMs: 1_000, maxMs: 60_000 }),
});

const reconnect = z
  .strictObject(
    {
      base_ms: millis("reconnect.base_ms").optional(),
      max_ms: millis("reconnect.max_ms").optional(),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown key ${JSON.stringify(iss.keys[0])}. reconnect takes base_ms: and max_ms:.`
          : `expected a map such as { base_ms: 1000, max_ms: 60000 }, found ${describeValue(iss.input)}.`,
    },
  )
  .transform((r) => ({
    baseMs: r.base_ms ?? DEFAULT_MCP.reconnect.baseMs,
    maxMs: r.max_ms ?? Math.max(DEFAULT_MCP.reconnect.maxMs, r.base_ms ?? 0),
  }))
  .refine((r) => r.baseMs <= r.maxMs, {
    path: ["max_ms"],
    error: "max_ms must be at least base_ms: delays double from base_ms up to max_ms.",
  });

/** The `mcp:` section; empty or absent, it is {@link DEFAULT_MCP}. */
export const mcpSection = sectionMap(
  "mcp",
  {
    servers: z.preprocess((value) => value ?? {}, mcpServersSection).optional(),
    call_timeout_ms: millis("call_timeout_ms").optional(),
    connect_timeout_ms: millis("connect_timeout_ms").optional(),
    description_max: z
      .number({ error: (iss) => `expected a length, found ${describeValue(iss.input)}.` })
      .int({ error: "description_max is a number of characters, e.g. 1024." })
      .min(16, { error: "description_max must be at least 16 characters." })
      .max(100_000, { error: "description_max must be at most 100000 characters." })
      .optional(),
    reconnect: z.preprocess((value) => value ?? {}, reconnect).optional(),
  },
  {
    note: "(To switch MCP tools on or off, use tools: { mcp: ... }.)",
    put: "servers: and the timeouts",
  },
).transform(
  (section): McpConfig =>
    Object.freeze({
      servers: Object.freeze({ ...section.servers }),
      callTimeoutMs: section.call_timeout_ms ?? DEFAULT_MCP.callTimeoutMs,
      connectTimeoutMs: section.connect_timeout_ms ?? DEFAULT_MCP.connectTimeoutMs,
      descriptionMax: section.description_max ?? DEFAULT_MCP.descriptionMax,
      reconnect: Object.freeze(section.reconnect ?? DEFAULT_MCP.reconnect),
    }),
);
