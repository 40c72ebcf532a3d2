import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { extensionOf } from "../../core/attachments/kind.ts";
import type { ToolFile } from "../../core/tools/tool-result.ts";

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/svg+xml": "svg",
  "application/pdf": "pdf",
};

/**
 * The files in an MCP tool result: its image blocks and its blob
 * resources, decoded, so what a server draws or exports reaches the person
 * (the result's text still describes each). Named from the resource's URI,
 * else `image-1.png`; the declared MIME type goes along, and the worker
 * sniffs the bytes anyway.
 */
export function mcpResultFiles(result: CallToolResult): ToolFile[] {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const files: ToolFile[] = [];
  let images = 0;
  for (const block of blocks) {
    if (block.type === "image" && typeof block.data === "string") {
      images++;
      const name = `image-${images}.${EXTENSIONS[block.mimeType] ?? "bin"}`;
      files.push(file(name, block.data, block.mimeType));
    } else if (block.type === "resource" && "blob" in block.resource) {
      const { uri, mimeType, blob } = block.resource;
      files.push(file(nameOf(uri, mimeType, files.length + 1), String(blob), mimeType));
    }
  }
  return files;
}

function file(name: string, base64: string, type: string | undefined): ToolFile {
  const bytes = new Uint8Array(Buffer.from(base64, "base64"));
  return type ? { name, bytes, type } : { name, bytes };
}

/** The last segment of the URI when it looks like a file name, else `file-<n>.<ext>`. */
function nameOf(uri: string, mimeType: string | undefined, n: number): string {
  let last = "";
  try {
    last = decodeURIComponent(new URL(uri).pathname.split("/").at(-1) ?? "");
  } catch {
    last = uri.split("/").at(-1) ?? "";
  }
  if (last !== "" && extensionOf(last) !== "") return last;
  return `file-${n}.${EXTENSIONS[mimeType ?? ""] ?? "bin"}`;
}
