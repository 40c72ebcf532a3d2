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
