import { AGENT_ID } from "../config/agents-section.ts";

/**
 * What a turn is doing, channel-neutral, for the platform's status surface:
 * Slack's assistant status ("is searching the web…"), a Telegram chat
 * action, a Discord status line ("Searching the web…").
 *
 * A tool's `detail` is one of a few safe things (a file name the person
 * sent, a host, the id of an agent asked), never its arguments: a status line is seen by everyone in
 * the conversation, and a search query or a URL's path may be what the model
 * made of private words.
 */
export type Activity =
  | { readonly kind: "thinking" }
  | { readonly kind: "tool"; readonly tool: string; readonly detail?: string }
  /** Uploading a file of the answer (Telegram's `upload_document`). */
  | { readonly kind: "sending"; readonly file: string; readonly image: boolean }
  | { readonly kind: "approval" };

export const THINKING: Activity = { kind: "thinking" };

/** `mcp__<server>__<tool>`: an MCP tool's id (see src/tools/mcp/tool-ids.ts). */
const MCP_ID = /^mcp__(.+?)__(.+)$/;

/**
 * What a tool call is doing, with only the details the table allows:
 * `fetch_url` by the URL's host, `read_attachment` by the document's name
 * when `documentName` knows its id; every other tool by its id alone.
 *
 * @example
 * toolActivity("fetch_url", { url: "https://example.com/a?q=secret" });
 * // { kind: "tool", tool: "fetch_url", detail: "example.com" }
 */
export function toolActivity(
  tool: string,
  args: unknown,
  documentName?: (id: string) => string | undefined,
): Activity {
  const fields = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
  const detail =
    tool === "fetch_url"
      ? hostOf(fields.url)
      : tool === "read_attachment" && typeof fields.document === "string"
        ? documentName?.(fields.document.trim())
        : tool === "ask_agent" && typeof fields.agent === "string" && AGENT_ID.test(fields.agent)
          ? fields.agent
          : undefined;
  return detail ? { kind: "tool", tool, detail: shortened(detail) } : { kind: "tool", tool };
}

/**
 * The one table of phrases, lower case and without the ellipsis: "searching
 * the web", "reading report.pdf", "fetching example.com", "waiting for
 * approval", else "using <tool>" (an MCP tool by its own name and server).
 */
export function activityPhrase(activity: Activity): string {
  switch (activity.kind) {
    case "thinking":
      return "thinking";
    case "approval":
      return "waiting for approval";
    case "sending":
      return `sending ${activity.file}`;
    case "tool":
      return toolPhrase(activity.tool, activity.detail);
  }
}

/** As a status after the bot's name: "is searching the web…" (Slack). */
export function statusText(activity: Activity): string {
  return `is ${activityPhrase(activity)}…`;
}

/** As a line of its own: "Searching the web…" (Discord). */
export function lineText(activity: Activity): string {
  const phrase = activityPhrase(activity);
  return `${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}…`;
}

function toolPhrase(tool: string, detail: string | undefined): string {
  switch (tool) {
    case "web_search":
      return "searching the web";
    case "fetch_url":
      return detail ? `fetching ${detail}` : "fetching a web page";
    case "read_attachment":
      return detail ? `reading ${detail}` : "reading a document";
    case "ask_agent":
      return detail ? `asking ${detail}` : "asking another agent";
  }
  const mcp = MCP_ID.exec(tool);
  if (mcp) return `using ${mcp[2]} (${mcp[1]})`;
  return `using ${tool}`;
}

/** The host of an http(s) URL, without port, credentials, path or query; undefined for anything else. */
function hostOf(url: unknown): string | undefined {
  if (typeof url !== "string") return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
    return parsed.hostname || undefined;
  } catch {
    return undefined;
  }
}

/** A detail is a few words on a status line: at most 60 characters, on one line. */
function shortened(detail: string): string {
  const line = detail.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
