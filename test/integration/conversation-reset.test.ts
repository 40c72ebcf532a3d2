import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/tools/tool.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { until } from "../support/channels.ts";
import { lookupTool, type Pipeline, startPipeline } from "../support/pipeline.ts";

let pipe: Pipeline | undefined;
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

/** A tool that runs until the test lets it finish. */
function heldTool() {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const started: number[] = [];
  const tool = defineTool({
    id: "query_db",
    description: "Runs a query on the team database.",
    parameters: z.object({ sql: z.string() }),
    execute: async ({ sql }) => {
      started.push(Date.now());
      await held;
      return `rows for ${sql}`;
    },
  });
  return { tool, started, release: () => release() };
}

const chat = (request: { body: { messages: { role: string; content: string }[] } } | undefined) =>
  (request?.body.messages ?? []).filter((m) => m.role !== "system").map((m) => m.role);

describe("/new against the store", () => {
  it("waits for a running turn: its answer is delivered once, and the next turn starts with no history", async () => {
    const { tool, started, release } = heldTool();
    pipe = await startPipeline({ tools: [tool, lookupTool] });
    const address = pipe.message("");
    pipe.fake.script(
      { toolCalls: [{ id: "c1", name: "query_db", arguments: { sql: "select 1" } }] },
      { content: "Here are the rows." },
      { content: "Fresh start." },
    );
    await pipe.app.queue.enqueue(pipe.message("run the report"));
    await until(() => (started.length === 1 ? true : undefined));
    // The turn is running: the reset waits for its boundary.
    expect(await pipe.app.store.resets.request(address, "history")).toBe("later");
    release();
    const [answer] = await pipe.posts(1);
    expect(answer?.text).toBe("Here are the rows.");
    // The running turn kept its history: its second request had the tool call and result.
    expect(chat(pipe.fake.requests[1])).toEqual(["user", "assistant", "tool"]);

    await pipe.app.queue.enqueue(pipe.message("what did we talk about?"));
    expect((await pipe.posts(2)).map((p) => p.text)).toEqual([
      "Here are the rows.",
      "Fresh start.",
    ]);
    expect(chat(pipe.fake.requests[2])).toEqual(["user"]);
    expect(pipe.fake.requests).toHaveLength(3);
  });

  it("resets a conversation at rest at once: history and mounts go, tool choices stay unless --all", async () => {
    pipe = await startPipeline();
    const address = pipe.message("");
    const { store } = pipe.app;
    pipe.fake.script({ content: "hello" });
    await pipe.app.queue.enqueue(pipe.message("hi"));
    await pipe.posts(1);
    // At rest: no worker holds the conversation any more.
    const inbox = new Inbox(pipe.app.redis, store.keys);
    for (let i = 0; i < 400 && !(await inbox.idle(address)); i++) await sleep(25);
    await store.intent.apply(address, { kind: "set", key: "lookup", value: "off" });
    await store.intent.apply(address, { kind: "mount", ids: ["calendar_create"] });
    await store.settings.write("conversation", address, "model", "big-model");

    expect(await store.resets.request(address, "history")).toBe("now");
    expect((await store.history.read(address)).messages).toEqual([]);
    const kept = (await store.intent.read(address)).intent;
    expect(kept.mounted).toEqual([]);
    expect(kept.decisions).toEqual({ lookup: false });
    expect((await store.settings.read(address)).conversation).toEqual({ model: "big-model" });

    expect(await store.resets.request(address, "all")).toBe("now");
    expect((await store.intent.read(address)).intent.decisions).toEqual({});
    expect((await store.settings.read(address)).conversation).toEqual({});
  });
});
