import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AnyTool,
  defineJsonSchemaTool,
  defineTool,
  type ToolContext,
} from "../../src/core/tools/tool.ts";
import { currentTimeTool } from "../../src/tools/current-time.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let pipe: Pipeline | undefined;
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

/** The tool results the model got back in its second request, by call id. */
function resultsOf(p: Pipeline): Record<string, string> {
  const messages = p.fake.requests[1]?.body.messages as {
    role: string;
    tool_call_id?: string;
    content: string;
  }[];
  return Object.fromEntries(
    messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]),
  );
}

describe("tool arguments the model gets wrong, through the worker and the model", () => {
  it("answers current_time called with time_zone with what it takes, and runs the corrected call", async () => {
    const ran: string[] = [];
    const time = currentTimeTool(() => new Date(Date.UTC(2026, 11, 1, 9, 0, 0)));
    const watched: AnyTool = {
      ...time,
      execute: (args: { timeZone: string }, ctx: ToolContext) => {
        ran.push(args.timeZone);
        return time.execute(args, ctx);
      },
    };
    pipe = await startPipeline({ tools: [watched] });
    pipe.fake.script(
      {
        toolCalls: [{ id: "wrong", name: "current_time", arguments: { time_zone: "Asia/Tokyo" } }],
      },
      { toolCalls: [{ id: "right", name: "current_time", arguments: { timeZone: "Asia/Tokyo" } }] },
      { content: "It is 18:00 in Tokyo." },
    );
    await pipe.app.queue.enqueue(pipe.message("what time is it in Tokyo?"));
    const [post] = await pipe.posts(1);
    expect(post?.text).toBe("It is 18:00 in Tokyo.");
    expect(resultsOf(pipe)).toEqual({
      wrong:
        'Invalid arguments for current_time: unknown argument "time_zone" (did you mean "timeZone"?); current_time takes: timeZone. Fix them and call it again.',
    });
    // The call with the unknown key never ran with the default zone; the corrected one did.
    expect(ran).toEqual(["Asia/Tokyo"]);
  });

  it("keeps passing extra keys to an MCP tool whose schema allows them, and refuses them where it does not", async () => {
    const seen: unknown[] = [];
    const open = defineJsonSchemaTool({
      id: "mcp__docs__search",
      family: "mcp:docs",
      description: "Searches the docs.",
      inputSchema: { type: "object", properties: { q: { type: "string" } } },
      execute: (args) => {
        seen.push(args);
        return "found";
      },
    });
    const strict = defineJsonSchemaTool({
      id: "mcp__docs__open",
      family: "mcp:docs",
      description: "Opens a page.",
      inputSchema: {
        type: "object",
        properties: { page: { type: "string" } },
        additionalProperties: false,
      },
      execute: () => "opened",
    });
    pipe = await startPipeline({ tools: [open, strict] });
    pipe.fake.script(
      {
        toolCalls: [
          { id: "a", name: "mcp__docs__search", arguments: { q: "lease", limit: 3 } },
          { id: "b", name: "mcp__docs__open", arguments: { pgae: "intro" } },
        ],
      },
      { content: "done" },
    );
    await pipe.app.queue.enqueue(pipe.message("search the docs"));
    await pipe.posts(1);
    expect(seen).toEqual([{ q: "lease", limit: 3 }]);
    expect(resultsOf(pipe)).toEqual({
      a: "found",
      b: 'Invalid arguments for mcp__docs__open: unknown argument "pgae" (did you mean "page"?); mcp__docs__open takes: page. Fix them and call it again.',
    });
  });

  it("answers deep, non-object and non-JSON arguments each with invalid_args, and the turn goes on", async () => {
    const outcomes: string[] = [];
    let ran = 0;
    const store = defineTool({
      id: "store_json",
      description: "Stores a JSON document.",
      parameters: z.object({ doc: z.json() }),
      execute: () => {
        ran++;
        return "stored";
      },
    });
    pipe = await startPipeline({
      tools: [store],
      observe: { toolCall: (_tool, outcome) => outcomes.push(outcome) },
    });
    // 40,000 levels: under the provider's size cap, so it is the depth that is refused.
    const deep = `{"doc":${"[".repeat(40_000)}${"]".repeat(40_000)}}`;
    pipe.fake.script(
      {
        toolCalls: [
          { id: "deep", name: "store_json", arguments: deep },
          { id: "list", name: "store_json", arguments: "[1, 2, 3]" },
          { id: "prose", name: "store_json", arguments: "please store my notes" },
          { id: "fine", name: "store_json", arguments: { doc: { notes: ["a"] } } },
        ],
      },
      { content: "Stored the one that made sense." },
    );
    await pipe.app.queue.enqueue(pipe.message("store these"));
    const [post] = await pipe.posts(1);
    expect(post?.text).toBe("Stored the one that made sense.");
    const results = resultsOf(pipe);
    expect(results.deep).toBe(
      "The arguments for store_json nest deeper than 64 levels, the limit. Call it again with flatter arguments, as its parameters describe them.",
    );
    expect(results.list).toBe(
      'The arguments for store_json must be a JSON object of named arguments, e.g. {"name": "value"}, not an array. Call it again with an object.',
    );
    expect(results.prose).toMatch(
      /^The arguments for store_json were not valid JSON \(please store my notes\)/,
    );
    expect(results.fine).toBe("stored");
    expect(ran).toBe(1);
    expect(outcomes.sort()).toEqual(["invalid_args", "invalid_args", "invalid_args", "ok"]);
  });
});
