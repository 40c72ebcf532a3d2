import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { canonicalJson } from "../../core/tools/canonical-json.ts";

export interface ResultTextOptions {
  /** The most of an embedded text resource that is kept; the rest is cut with a note. */
  readonly resourceTextMax?: number;
}

const DEFAULT_RESOURCE_TEXT_MAX = 8_000;

/**
 * An MCP tool result as the text a model reads. A tool result is text
 * (DESIGN: Tool), and base64 in a prompt is tokens spent on nothing, so:
 *
 * - text blocks are kept, one per line;
 * - images and audio are described: `[image: image/png, 12 KB]` (images,
 *   like blob resources, also become files of the result: see
 *   `mcpResultFiles`);
 * - embedded resources and resource links are described by URI and MIME
 *   type, and a text resource's text is included, capped;
 * - `structuredContent` is included as canonical JSON when no block is text
 *   (servers that send both put the same data in the text).
 *
 * `isError` is not looked at here: the caller decides what an error is.
 */
export function mcpResultText(result: CallToolResult, options: ResultTextOptions = {}): string {
  const max = options.resourceTextMax ?? DEFAULT_RESOURCE_TEXT_MAX;
  const blocks = Array.isArray(result.content) ? result.content : [];
  const lines = blocks.map((block) => blockText(block, max));
  const hasText = blocks.some((block) => block.type === "text");
  if (!hasText && result.structuredContent !== undefined) {
    lines.push(canonicalJson(result.structuredContent));
  }
  const text = lines.join("\n");
  return text.trim() === "" ? "(the tool returned no content)" : text;
}

function blockText(block: ContentBlock, max: number): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${sizeText(base64Bytes(block.data))}]`;
    case "resource_link": {
      const about = [block.name, block.description].filter(Boolean).join(": ");
      return `[resource link: ${block.uri}${typeText(block.mimeType, block.size)}${about ? ` ${about}` : ""}]`;
    }
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") {
        const head = `[resource: ${resource.uri}${typeText(resource.mimeType)}]`;
        const body =
          resource.text.length > max
            ? `${resource.text.slice(0, max)}\n[… ${resource.text.length - max} more characters of this resource cut]`
            : resource.text;
        return `${head}\n${body}`;
      }
      const bytes = "blob" in resource ? base64Bytes(String(resource.blob)) : undefined;
      return `[resource: ${resource.uri}${typeText(resource.mimeType, bytes)}]`;
    }
    default:
      return `[${String((block as { type?: unknown }).type)} content]`;
  }
}

/** ` (text/plain, 2 KB)`, ` (text/plain)`, or nothing when neither is known. */
function typeText(mimeType: string | undefined, bytes?: number): string {
  const parts = [mimeType, bytes === undefined ? undefined : sizeText(bytes)].filter(Boolean);
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

/** The decoded size of base64 data, without decoding it. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
