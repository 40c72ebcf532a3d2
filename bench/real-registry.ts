import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseConfig } from "../src/platforms/config.ts";
import { Host } from "../src/runtime/host.ts";
import { printModeTokens } from "./core.ts";

const BIN = fileURLToPath(new URL("../node_modules/.bin/", import.meta.url));

/**
 * Tokens per mode for the bot's real registry: the built-in tools with a web
 * search provider configured, and the two reference MCP servers connected
 * over stdio (server-everything, server-filesystem on a temp folder).
 */
export async function benchRealTokens(print: (line: string) => void): Promise<boolean> {
  const shared = mkdtempSync(join(tmpdir(), "sy-bench-fs-"));
  const config = parseConfig(
    [
      "web:",
      "  search: { provider: searxng, url: http://127.0.0.1:8888 }",
      "mcp:",
      "  servers:",
      "    everything:",
      `      command: ${JSON.stringify(join(BIN, "mcp-server-everything"))}`,
      "      args: [stdio]",
      "    filesystem:",
      `      command: ${JSON.stringify(join(BIN, "mcp-server-filesystem"))}`,
      `      args: [${JSON.stringify(shared)}]`,
    ].join("\n"),
    "bench.yaml",
  );
  const host = new Host({ env: {}, config });
  try {
    await host.start();
    const connected = host.mcp.servers().filter((s) => host.mcp.state(s)?.kind === "connected");
    return printModeTokens(
      print,
      `real registry: built-ins + MCP ${connected.join(", ")}`,
      host.registry.snapshot(),
      host.capabilities(),
    );
  } finally {
    await host.close();
    rmSync(shared, { recursive: true, force: true });
  }
}
