import { setTimeout as sleep } from "node:timers/promises";
import { WebClient } from "@slack/web-api";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { QueueMode } from "../../src/core/agent/queue-mode.ts";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { defineTool } from "../../src/core/tools/tool.ts";
import { SlackOutbound } from "../../src/platforms/slack/outbound.ts";
import type { RecordedRequest } from "../../src/testing/fakes/openai-server.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import { until } from "../support/channels.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";

let pipe: Pipeline | undefined;
let slack: FakeSlackApi | undefined;
afterEach(async () => {
  await pipe?.close();
  await slack?.close();
  pipe = undefined;
  slack = undefined;
});

/** A tool that takes its time (`ms`, or until `finish` is called), and says when it started. */
function slowTool(ms: number) {
  const started: number[] = [];
  const finished = new AbortController();
  const tool = defineTool({
    id: "query_db",
    description: "Runs a query on the team database.",
    parameters: z.object({ sql: z.string() }),
    execute: async ({ sql }, ctx) => {
      started.push(Date.now());
      const signal = AbortSignal.any([ctx.signal, finished.signal]);
      await sleep(ms, undefined, { signal }).catch(() => {});
      return `rows for ${sql}`;
    },
  });
  return { tool, started, finish: () => finished.abort() };
}

const userTexts = (request: RecordedRequest | undefined) =>
  ((request?.body.messages ?? []) as { role: string; content: string }[])
    .filter((m) => m.role === "user")
    .map((m) => m.content);

function queueOf(mode: QueueMode, debounceMs = 0) {
  return () => ({ mode, debounceMs });
}

describe("steer", () => {
  it("hands a message that arrives during a tool to the next model request of the same turn, after the tool's result", async () => {
    // The tool runs until the second message is queued: it surely arrives during the tool,
    // however slow the machine (a 1.5 s tool was a bet on the enqueue being quicker).
    const { tool, started, finish } = slowTool(30_000);
    pipe = await startPipeline({ tools: [tool], queueBehaviour: queueOf("steer") });
    pipe.fake.script(
      { toolCalls: [{ id: "call_q", name: "query_db", arguments: { sql: "select 1" } }] },
      { content: "Ran it on staging." },
    );
    await pipe.app.queue.enqueue(pipe.message("run the report"));
    await until(() => (started.length === 1 ? true : undefined));
    await pipe.app.queue.enqueue(pipe.message("wait, use the staging database"));
    finish();

    expect((await pipe.posts(1)).map((p) => p.text)).toEqual(["Ran it on staging."]);
    await sleep(800);
    expect((await pipe.posts(1)).length).toBe(1);
    expect(pipe.fake.requests).toHaveLength(2);
    const second = pipe.fake.requests[1]?.body.messages as { role: string; content: string }[];
    const roles = second.map((m) => m.role);
    // The call keeps its result, and the steered message comes right after it.
    expect(roles.slice(-3)).toEqual(["assistant", "tool", "user"]);
    expect(second.at(-1)?.content).toBe("wait, use the staging database");
    // Only messages were added: the tools array is the same bytes as in the first request.
    expect(JSON.stringify(pipe.fake.requests[1]?.body.tools)).toBe(
      JSON.stringify(pipe.fake.requests[0]?.body.tools),
    );
  });
});

describe("followup", () => {
  it("makes two quick messages two turns, answered in order", async () => {
    pipe = await startPipeline({ queueBehaviour: queueOf("followup") });
    pipe.fake.script({ content: "first answer", delayMs: 300 }, { content: "second answer" });
    await pipe.app.queue.enqueue(pipe.message("one"));
    await pipe.app.queue.enqueue(pipe.message("two"));
    expect((await pipe.posts(2)).map((p) => p.text)).toEqual(["first answer", "second answer"]);
    expect(userTexts(pipe.fake.requests[0])).toEqual(["one"]);
    expect(userTexts(pipe.fake.requests[1])).toEqual(["one", "two"]);
  });
});

describe("the quiet window", () => {
  it("takes a burst of three quick lines as one turn", async () => {
    // The window is wide next to the 100 ms the lines are apart, so a loaded machine that
    // stretches a gap (a 500 ms window against 100 ms gaps was a bet it would not) still
    // sends a burst; the gaps are measured, so a test that sent no burst says so.
    const windowMs = 2_000;
    pipe = await startPipeline({ queueBehaviour: queueOf("followup", windowMs) });
    pipe.fake.script({ content: "one answer for all three" });
    const sentAt: number[] = [];
    for (const line of ["so", "about the deploy", "is it done?"]) {
      if (sentAt.length > 0) await sleep(100);
      await pipe.app.queue.enqueue(pipe.message(line));
      sentAt.push(Date.now());
    }
    const gaps = sentAt.slice(1).map((at, i) => at - (sentAt[i] ?? at));
    expect(Math.max(...gaps), `the lines were ${gaps.join(", ")} ms apart`).toBeLessThan(
      windowMs / 2,
    );
    expect((await pipe.posts(1)).map((p) => p.text)).toEqual(["one answer for all three"]);
    await sleep(800);
    expect(pipe.fake.requests).toHaveLength(1);
    expect(userTexts(pipe.fake.requests[0])).toEqual(["so", "about the deploy", "is it done?"]);
  });
});

describe("the quiet window in collect mode", () => {
  it("sends a lone line to the model at once, and folds lines typed meanwhile into the same turn and answer", async () => {
    const windowMs = 2_000;
    pipe = await startPipeline({ queueBehaviour: queueOf("collect", windowMs) });
    // The first request never answers: only the request that starts over with every line may.
    pipe.fake.script({ neverAnswer: true }, { content: "one answer for all three" });
    const sentAt: number[] = [];
    await pipe.app.queue.enqueue(pipe.message("so"));
    sentAt.push(Date.now());
    // The first line reaches the model while its window is still open: before the next line is typed.
    await pipe.requests(1);
    expect(userTexts(pipe.fake.requests[0])).toEqual(["so"]);
    for (const line of ["about the deploy", "is it done?"]) {
      if (sentAt.length > 1) await sleep(100);
      await pipe.app.queue.enqueue(pipe.message(line));
      sentAt.push(Date.now());
    }
    const gaps = sentAt.slice(1).map((at, i) => at - (sentAt[i] ?? at));
    expect(Math.max(...gaps), `the lines were ${gaps.join(", ")} ms apart`).toBeLessThan(
      windowMs / 2,
    );
    expect((await pipe.posts(1)).map((p) => p.text)).toEqual(["one answer for all three"]);
    // The request the burst made obsolete was cancelled, not left to run.
    expect(pipe.fake.requests[0]?.closedEarly).toBe(true);
    expect(pipe.fake.requests).toHaveLength(2);
    expect(userTexts(pipe.fake.requests[1])).toEqual(["so", "about the deploy", "is it done?"]);

    // The folded lines are in history once, in order, and the next turn follows them.
    pipe.fake.script({ content: "you're welcome" });
    await pipe.app.queue.enqueue(pipe.message("thanks"));
    expect((await pipe.posts(2)).map((p) => p.text)).toEqual([
      "one answer for all three",
      "you're welcome",
    ]);
    expect(pipe.fake.requests).toHaveLength(3);
    expect(userTexts(pipe.fake.requests[2])).toEqual([
      "so",
      "about the deploy",
      "is it done?",
      "thanks",
    ]);
  });

  it("answers a lone line with the request it started inside the window, once, posted whole when the model finished inside it", async () => {
    const p = await slackPipeline(1_000);
    p.pipe.fake.script({ content: "hello there, how can I help today?", chunkDelayMs: 10 });
    await p.pipe.app.queue.enqueue(p.where("hi"));
    await until(() => (p.bot().length > 0 ? true : undefined));
    await sleep(300);
    expect(p.bot()).toEqual(["hello there, how can I help today?"]);
    // No streamed preview edited into the answer: the text was held, then posted once.
    for (const method of ["chat.update", "chat.startStream", "chat.appendStream"]) {
      expect(p.slack.callsTo(method), method).toHaveLength(0);
    }
    expect(p.pipe.fake.requests).toHaveLength(1);
    expect(p.pipe.fake.requests[0]?.closedEarly).not.toBe(true);
  });

  it("streams an answer that outlasts the window from the moment the window closes", async () => {
    const p = await slackPipeline(300);
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    p.pipe.fake.script({ content: words, chunkDelayMs: 100 });
    await p.pipe.app.queue.enqueue(p.where("tell me"));
    // A preview shows while the model still streams, and grows into the answer in place.
    const preview = await until(() => p.bot()[0]);
    expect(preview).not.toBe(words);
    expect(words.startsWith(preview)).toBe(true);
    await until(() => (p.bot()[0] === words ? true : undefined), 20_000);
    expect(p.bot()).toHaveLength(1);
    const streamed = ["chat.update", "chat.appendStream"].flatMap((m) => p.slack.callsTo(m));
    expect(streamed.length).toBeGreaterThan(0);
    expect(p.pipe.fake.requests).toHaveLength(1);
  }, 40_000);
});

/** A pipeline answering in a Slack thread (which streams by post and edit), with a quiet window. */
async function slackPipeline(windowMs: number) {
  const fakeSlack = await startFakeSlackApi();
  slack = fakeSlack;
  const client = new WebClient(FAKE_SLACK.botToken, {
    slackApiUrl: fakeSlack.url,
    retryConfig: { retries: 0 },
  });
  const p = await startPipeline({
    outbounds: { slack: new SlackOutbound(client) },
    queueBehaviour: queueOf("collect", windowMs),
    streamEditMs: 200,
  });
  pipe = p;
  const thread = "1700000000.000100";
  return {
    pipe: p,
    slack: fakeSlack,
    where: (text: string): InboundMessage => ({
      ...p.message(text),
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "C0GENERAL",
      conversation: `C0GENERAL:${thread}`,
      thread,
      messageRef: thread,
    }),
    bot: () => fakeSlack.messages.filter((m) => m.bot_id).map((m) => m.text ?? ""),
  };
}

describe("interrupt", () => {
  it("cancels the model request, marks the streamed partial once, and answers both messages in one new turn", async () => {
    slack = await startFakeSlackApi();
    const client = new WebClient(FAKE_SLACK.botToken, {
      slackApiUrl: slack.url,
      retryConfig: { retries: 0 },
    });
    const p = await startPipeline({
      outbounds: { slack: new SlackOutbound(client) },
      queueBehaviour: queueOf("interrupt"),
      streamEditMs: 200,
    });
    pipe = p;
    const fakeSlack = slack;
    const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
    p.fake.script({ content: long, chunkDelayMs: 150 }, { content: "Both answered." });
    const thread = "1700000000.000100";
    const where = (text: string, ts: string): InboundMessage => ({
      ...p.message(text),
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "C0GENERAL",
      conversation: `C0GENERAL:${thread}`,
      thread,
      messageRef: ts,
    });
    const bot = () => fakeSlack.messages.filter((m) => m.bot_id).map((m) => m.text ?? "");
    await pipe.app.queue.enqueue(where("tell me everything", thread));
    await until(() => (bot().some((t) => t.startsWith("word0")) ? true : undefined));
    await pipe.app.queue.enqueue(where("actually, just the summary", "1700000000.000200"));

    await until(() => (bot().includes("Both answered.") ? true : undefined), 20_000);
    await sleep(800);
    const shown = bot();
    expect(shown).toHaveLength(2);
    expect(shown[0]).toMatch(/^word0.*\n\n_\(interrupted\)_$/s);
    expect(shown[0]?.match(/interrupted/g)).toHaveLength(1);
    expect(shown[1]).toBe("Both answered.");
    expect(pipe.fake.requests[0]?.closedEarly).toBe(true);
    expect(pipe.fake.requests).toHaveLength(2);
    expect(userTexts(pipe.fake.requests[1])).toEqual([
      "tell me everything",
      "actually, just the summary",
    ]);
  }, 40_000);
});

describe("/stop", () => {
  it("stops a turn running a 30 s tool long before the tool would end, says so, and the conversation goes on", async () => {
    // The tool would end on its own only after 30 s: a "Stopped." well before that is the
    // /stop interrupting it, whatever the machine's load (a 3 s promise was a latency bet).
    const toolMs = 30_000;
    const { tool, started } = slowTool(toolMs);
    pipe = await startPipeline({ tools: [tool] });
    pipe.fake.script({
      toolCalls: [{ id: "call_q", name: "query_db", arguments: { sql: "select *" } }],
    });
    const first = pipe.message("run the big report");
    // Nothing runs yet: a /stop says so.
    expect(await pipe.app.signals.send(first, "stop")).toBe(false);
    await pipe.app.queue.enqueue(first);
    await until(() => (started.length === 1 ? true : undefined));
    const asked = Date.now();
    expect(await pipe.app.signals.send(first, "stop")).toBe(true);
    const [stopped] = await pipe.posts(1);
    expect(stopped?.text).toBe("Stopped.");
    expect(Date.now() - asked).toBeLessThan(toolMs / 3);
    expect(pipe.fake.requests).toHaveLength(1);

    pipe.fake.script({ content: "Here is the small one." });
    await pipe.app.queue.enqueue(pipe.message("just the small report then"));
    expect((await pipe.posts(2)).map((p) => p.text)).toEqual([
      "Stopped.",
      "Here is the small one.",
    ]);
    // The stopped call kept a result, so history stays a valid exchange.
    const history = pipe.fake.requests[1]?.body.messages as { role: string; content: string }[];
    expect(history.find((m) => m.role === "tool")?.content).toMatch(/stopped before it finished/);
  }, 40_000);
});
