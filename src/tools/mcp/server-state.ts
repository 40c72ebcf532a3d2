import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CapabilityStatus } from "../../core/availability/capabilities.ts";

/**
 * Where one MCP server stands. `attempt` counts the connection attempts since
 * the server was last connected, starting at 1.
 */
export type McpServerState =
  | {
      readonly kind: "connecting";
      readonly attempt: number;
      /** Why the previous attempt failed or the connection dropped. */
      readonly lastError?: string;
    }
  | {
      readonly kind: "connected";
      readonly tools: number;
      /** The child process of a command server. */
      readonly pid?: number;
    }
  | {
      /** Waiting out the backoff before `attempt`. */
      readonly kind: "waiting";
      readonly attempt: number;
      readonly lastError: string;
    }
  | {
      /** Not retried: the fix is in the config or the environment, and needs a restart. */
      readonly kind: "failed";
      readonly lastError: string;
    }
  | { readonly kind: "closed" };

/**
 * The capability `mcp:<server>` for a state. The reason is what `/tools`
 * shows and what a call answers as its tombstone, so it says what happened
 * in a person's words: "MCP server filesystem is not connected: spawn npx
 * ENOENT (retrying, attempt 2 next)".
 */
export function capabilityOf(server: string, state: McpServerState): CapabilityStatus {
  if (state.kind === "connected") return { available: true };
  return { available: false, reason: `MCP server ${server} is not connected: ${detailOf(state)}` };
}

/** The part of the reason after "is not connected: ". */
export function detailOf(state: Exclude<McpServerState, { kind: "connected" }>): string {
  switch (state.kind) {
    case "connecting":
      return state.lastError === undefined
        ? `connecting (attempt ${state.attempt})`
        : `connecting (attempt ${state.attempt}; last error: ${state.lastError})`;
    case "waiting":
      return `${state.lastError} (retrying, attempt ${state.attempt} next)`;
    case "failed":
      return `${state.lastError} (not retried until the bot restarts)`;
    case "closed":
      return "the bot stopped it (shutting down, or its config changed)";
  }
}

const MAX_ERROR = 300;

/**
 * An error as one short line for a reason: its message, then its cause's
 * (fetch says "fetch failed"; the cause says "connect ECONNREFUSED").
 * Trailing periods go, because reasons are embedded in sentences.
 */
export function errorLine(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  if (error instanceof StreamableHTTPError && error.code !== undefined) {
    parts.push(httpLine(error.code, error.message));
    current = error.cause;
  }
  for (let depth = 0; depth < 3 && current !== undefined && current !== null; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message !== "" && !parts.some((part) => part.includes(message))) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  const line = (parts.join(": ") || "unknown error").replace(/\s+/g, " ").trim();
  const short = line.length > MAX_ERROR ? `${line.slice(0, MAX_ERROR - 1)}…` : line;
  return short.replace(/\.+$/, "");
}

/**
 * The SDK words a refused request as "Streamable HTTP error: Error POSTing to
 * endpoint: <body>"; the status, and for 401/403 where to look, is what a
 * person can act on.
 */
function httpLine(status: number, message: string): string {
  const body = message
    .replace(/^Streamable HTTP error:\s*/, "")
    .replace(/^Error POSTing to endpoint:?\s*/, "");
  const hint =
    status === 401 || status === 403
      ? " (the server refused the credentials: check the server's headers: and the variables they use)"
      : "";
  return `HTTP ${status}${hint}${body === "" ? "" : `: ${body}`}`;
}
