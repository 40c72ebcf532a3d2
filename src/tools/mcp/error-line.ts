import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

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
