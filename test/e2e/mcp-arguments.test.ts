import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { McpHub } from "../../src/tools/mcp/index.ts";
import { filesystemServer } from "../support/mcp.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let shared: string;
beforeAll(() => {
  shared = mkdtempSync(join(tmpdir(), "sy-mcp-args-"));
  writeFileSync(join(shared, "notes.txt"), "the launch is on Tuesday\n");
});
afterAll(() => rmSync(shared, { recursive: true, force: true }));

describe("extra argument keys to a real MCP server's tool", () => {
  let pipe: Pipeline | undefined;
  let hub: McpHub | undefined;
  afterEach(async () => {
    await pipe?.close();
    await hub?.close();
    pipe = hub = undefined;
  });

  it("reach the server when its schema does not forbid them, as before", async () => {
    const fs = filesystemServer(shared);
    const config = parseConfig(
      [
        "mcp:",
        "  servers:",
        "    filesystem:",
        `      command: ${JSON.stringify(fs.command)}`,
        `      args: ${JSON.stringify(fs.args)}`,
        "tools:",
        "  mcp__filesystem__read_text_file: on",
      ].join("\n"),
      "switchyard.yaml",
    );
    const registry = new ToolRegistry();
    hub = new McpHub(config.mcp, { registry });
    await hub.start();
    // The reference server's schema lists path, head and tail and says nothing of other keys.
    expect(registry.get("mcp__filesystem__read_text_file")?.jsonSchema).not.toHaveProperty(
      "additionalProperties",
    );
    const live = hub;
    pipe = await startPipeline({
      registry,
      capabilities: () => live.capabilities(),
      config: () => config,
    });
    const file = join(shared, "notes.txt");
    pipe.fake.script(
      {
        toolCalls: [
          {
            id: "extra",
            name: "mcp__filesystem__read_text_file",
            arguments: { path: file, encoding: "utf8" },
          },
        ],
      },
      { content: "The launch is on Tuesday." },
    );
    await pipe.app.queue.enqueue(pipe.message("when is the launch? it's in notes.txt"));
    const [post] = await pipe.posts(1, 30_000);
    expect(post?.text).toBe("The launch is on Tuesday.");
    expect(pipe.fake.requests[1]?.body.messages.at(-1)).toMatchObject({
      role: "tool",
      tool_call_id: "extra",
      content: expect.stringContaining("the launch is on Tuesday"),
    });
  }, 60_000);
});
