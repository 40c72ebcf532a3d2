/**
 * Errors of MCP tool calls. A tool call's errors become its result (DESIGN
 * rule 7): the tool runner answers `<tool id> failed: <message>`, so each
 * message says what happened in words a model can pass on to a person.
 */

/** The server ran the tool and answered `isError: true`. */
export class McpToolError extends Error {
  override readonly name = "McpToolError";
  constructor(
    readonly server: string,
    readonly tool: string,
    /** The server's own words, rendered like a result. */
    readonly detail: string,
  ) {
    super(`the MCP server ${server} reported an error from its tool ${tool}:\n${detail}`);
  }
}

/** The call did not get an answer: not connected, timed out, cancelled, or refused by the protocol. */
export class McpCallError extends Error {
  override readonly name = "McpCallError";
  constructor(
    readonly server: string,
    readonly tool: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A server's tools/list pages do not end (a cursor came back twice, or too many pages). */
export class McpListError extends Error {
  override readonly name = "McpListError";
}

/** A server's settings cannot be used once the environment is filled in (e.g. `url: ${MCP_URL}` is not a URL). */
export class McpServerConfigError extends Error {
  override readonly name = "McpServerConfigError";
}
