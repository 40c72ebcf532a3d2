import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/tools/tool.ts";
import { toolResult } from "../../src/core/tools/tool-result.ts";
import { runTool } from "../../src/turn/tool-runner.ts";

const context = { platform: "console", workspace: "w", channel: "c", conversation: "v", user: "u" };
const call = { id: "call_1", type: "function" as const, function: { name: "t", arguments: "{}" } };

describe("running one tool call", () => {
  it("answers with the tool's output", async () => {
    const tool = defineTool({
      id: "greet",
      description: "Greets someone.",
      parameters: z.object({ name: z.string() }),
      execute: ({ name }) => `hello ${name}`,
    });
    expect(await runTool(tool, { name: "Ada" }, call, context, { timeoutMs: 1_000 })).toEqual({
      outcome: "ok",
      output: "hello Ada",
    });
  });

  it("answers a result with files by its text, naming files it has nowhere to keep", async () => {
    const tool = defineTool({
      id: "chart",
      description: "Draws a chart.",
      parameters: z.object({}),
      execute: () => toolResult("Drawn.", [{ name: "c.png", bytes: new Uint8Array([1]) }]),
    });
    expect(await runTool(tool, {}, call, context, { timeoutMs: 1_000 })).toEqual({
      outcome: "ok",
      output: "Drawn.\n\n[files not sent: c.png: this bot keeps no files for answers]",
    });
  });

  it("answers a hand-made result whose file has no bytes as the tool's error", async () => {
    const tool = defineTool({
      id: "chart",
      description: "Draws a chart.",
      parameters: z.object({}),
      execute: () => ({ text: "Drawn.", files: [{ name: "c.png", bytes: "not bytes" as never }] }),
    });
    const run = await runTool(tool, {}, call, context, { timeoutMs: 1_000 });
    expect(run.outcome).toBe("error");
    expect(run.output).toMatch(
      /^chart returned a file that cannot be sent: File "c.png" .* no bytes/,
    );
  });

  it("answers invalid arguments with what is wrong, without running the tool", async () => {
    let ran = false;
    const tool = defineTool({
      id: "greet",
      description: "Greets someone.",
      parameters: z.object({ name: z.string() }),
      execute: () => {
        ran = true;
        return "";
      },
    });
    const run = await runTool(tool, { name: 42 }, call, context, { timeoutMs: 1_000 });
    expect(run.outcome).toBe("invalid_args");
    expect(run.output).toMatch(/^Invalid arguments for greet: name: /);
    expect(ran).toBe(false);
  });

  it("stops a tool that runs past its timeout, aborting its signal, and says so", async () => {
    let aborted = false;
    const tool = defineTool({
      id: "slow",
      description: "Takes forever.",
      parameters: z.object({}),
      execute: (_args, ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            aborted = true;
            resolve("late");
          });
        }),
    });
    const run = await runTool(tool, {}, call, context, { timeoutMs: 50 });
    expect(run).toEqual({
      outcome: "timeout",
      output: "slow did not answer within 50 ms and was stopped. Try again later or do without it.",
    });
    expect(aborted).toBe(true);
  });

  it("waits as long as the tool's own timeout says (an MCP server's), not the runner's default", async () => {
    const tool = defineTool({
      id: "patient",
      description: "Answers after 100 ms.",
      parameters: z.object({}),
      timeoutMs: 5_000,
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve("done"), 100)),
    });
    const run = await runTool(tool, {}, call, context, { timeoutMs: 20 });
    expect(run).toEqual({ outcome: "ok", output: "done" });
    const hasty = { ...tool, timeoutMs: 20 };
    const cut = await runTool(hasty, {}, call, context, { timeoutMs: 5_000 });
    expect(cut.outcome).toBe("timeout");
  });

  it("turns a thrown error into a result the model can read", async () => {
    const tool = defineTool({
      id: "broken",
      description: "Always fails.",
      parameters: z.object({}),
      execute: () => {
        throw new Error("the upstream API is down");
      },
    });
    expect(await runTool(tool, {}, call, context, { timeoutMs: 1_000 })).toEqual({
      outcome: "error",
      output: "broken failed: the upstream API is down",
    });
  });

  it("cuts an oversized result and says how much was cut", async () => {
    const tool = defineTool({
      id: "big",
      description: "Returns a lot.",
      parameters: z.object({}),
      execute: () => "x".repeat(120),
    });
    const run = await runTool(tool, {}, call, context, { timeoutMs: 1_000, maxOutputChars: 100 });
    expect(run.output).toBe(`${"x".repeat(100)}\n[… 20 more characters cut]`);
  });

  it("answers a schema whose validation throws with invalid_args, never a throw out of the runner", async () => {
    const tool = defineTool({
      id: "fragile",
      description: "Has a refinement with a bug.",
      parameters: z.object({
        name: z.string().refine(() => {
          throw new TypeError("cannot read properties of undefined");
        }),
      }),
      execute: () => "ran",
    });
    expect(await runTool(tool, { name: "x" }, call, context, { timeoutMs: 1_000 })).toEqual({
      outcome: "invalid_args",
      output:
        "Invalid arguments for fragile: its arguments could not be checked (cannot read properties of undefined). Call it again with simpler arguments.",
    });
  });

  it("answers arguments that are not an object with invalid_args", async () => {
    const tool = defineTool({
      id: "greet",
      description: "Greets someone.",
      parameters: z.object({ name: z.string() }),
      execute: () => "",
    });
    for (const args of [null, [1], "Ada", 7]) {
      const run = await runTool(tool, args, call, context, { timeoutMs: 1_000 });
      expect(run.outcome).toBe("invalid_args");
      expect(run.output).toMatch(
        /^The arguments for greet must be a JSON object of named arguments/,
      );
    }
  });
});
