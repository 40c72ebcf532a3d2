import { WebClient } from "@slack/web-api";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Checkpoint } from "../../src/core/agent/checkpoint.ts";
import type { QueueMode } from "../../src/core/agent/queue-mode.ts";
import type { ApprovalWait } from "../../src/core/approvals/approval.ts";
import { dayPeriod } from "../../src/core/budget/usage.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { SlackOutbound } from "../../src/platforms/slack/outbound.ts";
import type { OutboxEntry } from "../../src/platforms/terminal/outbox.ts";
import { begunAt, MAX_STALLED_PICKUPS } from "../../src/store/pickups.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import { GAVE_UP } from "../../src/turn/resume.ts";
import { clickBy, deployRuns, deployTool, parkedWait } from "../support/approvals.ts";
import { until } from "../support/channels.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";
import { connectRedis, uniquePrefix } from "../support/redis.ts";

const address: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "main",
};

let pipe: Pipeline | undefined;
let slack: FakeSlackApi | undefined;
const counter = connectRedis();
afterEach(async () => {
  await pipe?.close();
  await slack?.close();
  pipe = undefined;
  slack = undefined;
});
afterAll(() => counter.disconnect());

async function start(mode: QueueMode = "collect", timeoutMs = 15 * 60_000): Promise<Pipeline> {
  const prefix = uniquePrefix("ask");
  pipe = await startPipeline({
    prefix,
    tools: [deployTool(counter, prefix)],
    queueBehaviour: () => ({ mode, debounceMs: 0 }),
    approvals: { policy: () => ({ approvers: ["requester", "admins"], timeoutMs }) },
  });
  return pipe;
}

const deployCall = { id: "call_deploy", name: "deploy", arguments: { env: "prod" } };

/** Tool results the model saw in request `n`. */
function toolResults(p: Pipeline, n: number): string[] {
  const messages = (p.fake.requests[n]?.body.messages ?? []) as { role: string; content: string }[];
  return messages.filter((m) => m.role === "tool").map((m) => m.content);
}

async function entries(p: Pipeline): Promise<OutboxEntry[]> {
  return p.app.outbox.read("0", 100);
}

describe("a turn that calls a tool under ask", () => {
  it("parks with its request posted and the lease let go; an approval runs the tool once and the answer follows", async () => {
    const p = await start();
    p.fake.script(
      { toolCalls: [deployCall], usage: { prompt_tokens: 100, completion_tokens: 10 } },
      { content: "Deployed to prod.", usage: { prompt_tokens: 200, completion_tokens: 20 } },
    );
    await p.app.queue.enqueue(p.message("deploy prod"));
    const wait = await parkedWait(p.app.redis, p.app.store, address);
    const [request] = await p.posts(1);
    expect(request?.text).toContain("Approval needed: the bot wants to run deploy.");
    expect(request?.text).toContain('• deploy `{"env":"prod"}`');
    expect(await deployRuns(counter, p.prefix)).toBe(0);

    expect(await p.app.approvals.decide(clickBy(wait.id, "alice"))).toEqual({
      kind: "recorded",
      text: "Approved. The bot goes on.",
    });
    const posts = await p.posts(2);
    expect(posts.map((e) => e.text)[1]).toBe("Deployed to prod.");
    expect(await deployRuns(counter, p.prefix)).toBe(1);
    expect(toolResults(p, 1)).toEqual(["deployed to prod"]);
    // A later click is told who decided; nothing runs again.
    expect(await p.app.approvals.decide(clickBy(wait.id, "alice", "deny"))).toEqual({
      kind: "decided",
      text: "Alice already approved this.",
    });
    const edits = (await entries(p)).filter((e) => e.kind === "edit");
    expect(edits.map((e) => [e.ref, e.text])).toEqual([
      [wait.requestRef, "Approved by Alice: deploy."],
    ]);
    expect(await p.app.store.turns.readCheckpoint(address)).toBeUndefined();
    // What the model cost before the wait is counted as well as what it cost after.
    const used = await p.app.store.usage.read(
      { kind: "conversation", address },
      dayPeriod(Date.now()),
    );
    expect([used.prompt, used.completion]).toEqual([300, 30]);
  });

  it("gives the model who denied the call, and the turn goes on to an answer", async () => {
    const p = await start();
    p.fake.script({ toolCalls: [deployCall] }, { content: "Alice said no, so I did not deploy." });
    await p.app.queue.enqueue(p.message("deploy prod"));
    const wait = await parkedWait(p.app.redis, p.app.store, address);
    await p.app.approvals.decide(clickBy(wait.id, "alice", "deny"));
    expect((await p.posts(2)).map((e) => e.text)[1]).toBe("Alice said no, so I did not deploy.");
    expect(await deployRuns(counter, p.prefix)).toBe(0);
    expect(toolResults(p, 1)[0]).toMatch(/^not run: Alice denied it/);
    expect((await entries(p)).filter((e) => e.kind === "edit").map((e) => e.text)).toEqual([
      "Denied by Alice: deploy did not run.",
    ]);
  });

  it("expires when nobody decides in time: the model hears so, and the request says it expired", async () => {
    const p = await start("collect", 1_500);
    p.fake.script({ toolCalls: [deployCall] }, { content: "Nobody approved, so I stopped." });
    await p.app.queue.enqueue(p.message("deploy prod"));
    await parkedWait(p.app.redis, p.app.store, address);
    expect((await p.posts(2, 20_000)).map((e) => e.text)[1]).toBe("Nobody approved, so I stopped.");
    expect(toolResults(p, 1)).toEqual(["not run: nobody approved it within 2 s."]);
    expect((await entries(p)).filter((e) => e.kind === "edit").map((e) => e.text)).toEqual([
      "Expired: nobody decided within 2 s, so deploy did not run.",
    ]);
    expect(await deployRuns(counter, p.prefix)).toBe(0);
  });

  it("refuses a click by someone the policy does not name, and the turn stays parked", async () => {
    const p = await start();
    p.fake.script({ toolCalls: [deployCall] }, { content: "Deployed." });
    await p.app.queue.enqueue(p.message("deploy prod"));
    const wait = await parkedWait(p.app.redis, p.app.store, address);
    const answer = await p.app.approvals.decide(clickBy(wait.id, "mallory"));
    expect(answer.kind).toBe("refused");
    // Its safety wake comes and goes: the turn parks again, unchanged.
    await new Promise((r) => setTimeout(r, 3_500));
    expect(await parkedWait(p.app.redis, p.app.store, address)).toEqual(wait);
    expect(p.fake.requests).toHaveLength(1);
  });

  it("keeps collected messages waiting while parked, without holding the conversation, and answers them after", async () => {
    const p = await start("collect");
    p.fake.script(
      { toolCalls: [deployCall] },
      { content: "Deployed to prod." },
      { content: "And here is the status." },
    );
    await p.app.queue.enqueue(p.message("deploy prod"));
    const wait = await parkedWait(p.app.redis, p.app.store, address);
    // Many wakes by messages never give the parked turn up as stalled.
    for (let i = 0; i < 5; i++) await p.app.queue.enqueue(p.message(`status? ${i}`));
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await parkedWait(p.app.redis, p.app.store, address)).toEqual(wait);
    expect(p.fake.requests).toHaveLength(1);
    await p.app.approvals.decide(clickBy(wait.id, "alice"));
    const posts = await p.posts(3);
    expect(posts.slice(1).map((e) => e.text)).toEqual([
      "Deployed to prod.",
      "And here is the status.",
    ]);
    expect(await deployRuns(counter, p.prefix)).toBe(1);
  });

  it("closes the request of a turn given up after repeated crashes: edited once to its decision, no button left", async () => {
    const p = await start();
    p.fake.script({ toolCalls: [deployCall] }, { content: "never asked" });
    await p.app.queue.enqueue(p.message("deploy prod"));
    await parkedWait(p.app.redis, p.app.store, address);
    const checkpoint = await p.app.store.turns.readCheckpoint(address);
    // Three earlier runs of the decided turn died where this one would start (kill -9 before the edit).
    await p.app.redis.hset(p.app.store.keys.conversation(address).pickups, {
      at: begunAt(checkpoint as Checkpoint),
      count: MAX_STALLED_PICKUPS,
      token: "a crashed run",
      took: 1,
    });
    const wait = (checkpoint as Checkpoint).approval as ApprovalWait;
    await p.app.approvals.decide(clickBy(wait.id, "alice"));
    expect((await p.posts(2)).map((e) => e.text)[1]).toBe(GAVE_UP);
    expect((await entries(p)).filter((e) => e.kind === "edit").map((e) => [e.ref, e.text])).toEqual(
      [[wait.requestRef, "Approved by Alice: deploy."]],
    );
    expect(await deployRuns(counter, p.prefix)).toBe(0);
    expect(await p.app.approvals.decide(clickBy(wait.id, "alice", "deny"))).toMatchObject({
      kind: "decided",
    });
  });

  it("lets /stop end a parked turn: the call is cancelled, the request edited, and the turn says it stopped", async () => {
    const p = await start();
    p.fake.script({ toolCalls: [deployCall] }, { content: "never asked" });
    await p.app.queue.enqueue(p.message("deploy prod"));
    const wait = await parkedWait(p.app.redis, p.app.store, address);
    expect(await p.app.stopTurn(address)).toBe(true);
    expect((await p.posts(2)).map((e) => e.text)[1]).toBe("Stopped.");
    expect((await entries(p)).filter((e) => e.kind === "edit").map((e) => e.text)).toEqual([
      "Cancelled: the turn was stopped, so deploy did not run.",
    ]);
    expect(p.fake.requests).toHaveLength(1);
    expect(await deployRuns(counter, p.prefix)).toBe(0);
    const history = await p.app.store.history.load(address);
    // The call keeps its result (rule 6); a stopped turn stores no answer.
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(await p.app.approvals.decide(clickBy(wait.id, "alice"))).toEqual({
      kind: "decided",
      text: "This request was cancelled: the turn was stopped.",
    });
  });

  it("in the steer mode, a message supersedes the wait: the call is not run and the message joins the turn", async () => {
    const p = await start("steer");
    p.fake.script({ toolCalls: [deployCall] }, { content: "OK, staging instead." });
    await p.app.queue.enqueue(p.message("deploy prod"));
    await parkedWait(p.app.redis, p.app.store, address);
    await p.app.queue.enqueue(p.message("no wait, staging"));
    expect((await p.posts(2)).map((e) => e.text)[1]).toBe("OK, staging instead.");
    const second = (p.fake.requests[1]?.body.messages ?? []) as { role: string; content: string }[];
    expect(second.slice(-3).map((m) => m.role)).toEqual(["assistant", "tool", "user"]);
    expect(second.at(-2)?.content).toMatch(/^not run: alice wrote a new message instead/);
    expect(second.at(-1)?.content).toBe("no wait, staging");
    expect(await deployRuns(counter, p.prefix)).toBe(0);
    expect((await entries(p)).filter((e) => e.kind === "edit").map((e) => e.text)).toEqual([
      "Not decided: alice wrote instead, so deploy did not run.",
    ]);
  });

  it("in the interrupt mode, a message cancels the wait and is answered by the next turn", async () => {
    const p = await start("interrupt");
    p.fake.script({ toolCalls: [deployCall] }, { content: "Here is the status." });
    await p.app.queue.enqueue(p.message("deploy prod"));
    await parkedWait(p.app.redis, p.app.store, address);
    await p.app.queue.enqueue(p.message("actually, just the status"));
    expect((await p.posts(2)).map((e) => e.text)[1]).toBe("Here is the status.");
    expect(await deployRuns(counter, p.prefix)).toBe(0);
    expect((await entries(p)).filter((e) => e.kind === "edit").map((e) => e.text)).toEqual([
      "Cancelled: the turn was stopped, so deploy did not run.",
    ]);
    const history = await p.app.store.history.load(address);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user", "assistant"]);
  });

  it("turns the tool on for the conversation when approved for it: the next call runs without asking", async () => {
    const p = await start();
    p.fake.script(
      { toolCalls: [deployCall] },
      { content: "Deployed." },
      { toolCalls: [{ ...deployCall, id: "call_again" }] },
      { content: "Deployed again." },
    );
    await p.app.queue.enqueue(p.message("deploy prod"));
    const wait = await parkedWait(p.app.redis, p.app.store, address);
    await p.app.approvals.decide(clickBy(wait.id, "alice", "approve_conversation"));
    expect((await p.posts(2)).map((e) => e.text)[1]).toBe("Deployed.");
    // A person's on at conversation scope, where /tools reads it (rule 8), not a memo of the turn.
    expect((await p.app.store.intent.read(address)).intent.decisions).toEqual({ deploy: true });
    await p.app.queue.enqueue(p.message("and again"));
    expect((await p.posts(3)).map((e) => e.text)[2]).toBe("Deployed again.");
    expect(await deployRuns(counter, p.prefix)).toBe(2);
    expect((await entries(p)).filter((e) => e.kind === "edit").map((e) => e.text)).toEqual([
      "Approved by Alice for this conversation: deploy (now on here; /tools shows it).",
    ]);
  });

  it("leaves one message for the answer on a channel that streams: the text before the ask becomes the answer, the request sits below", async () => {
    slack = await startFakeSlackApi();
    const client = new WebClient(FAKE_SLACK.botToken, {
      slackApiUrl: slack.url,
      retryConfig: { retries: 0 },
    });
    const prefix = uniquePrefix("ask-stream");
    const p = await startPipeline({
      prefix,
      tools: [deployTool(counter, prefix)],
      outbounds: { slack: new SlackOutbound(client) },
      streamEditMs: 100,
    });
    pipe = p;
    p.fake.script(
      { content: "Let me deploy that.", toolCalls: [deployCall] },
      { content: "Deployed to prod." },
    );
    const where: ConversationAddress = {
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "C0GENERAL",
      conversation: "C0GENERAL",
    };
    await p.app.queue.enqueue({ ...p.message("deploy prod"), ...where });
    const wait = await parkedWait(p.app.redis, p.app.store, where);
    const fakeSlack = slack;
    const bot = () => fakeSlack.messages.filter((m) => m.bot_id).map((m) => m.text ?? "");
    expect(bot()[0]).toBe("Let me deploy that.");
    expect(bot()[1]).toContain("Approval needed");
    await p.app.approvals.decide({
      id: wait.id,
      choice: "approve",
      actor: { id: "slack:alice", isPlatformAdmin: false },
      name: "Alice",
      platform: "slack",
    });
    await until(() => (bot().includes("Deployed to prod.") ? true : undefined), 20_000);
    await new Promise((r) => setTimeout(r, 800));
    expect(bot()).toEqual(["Deployed to prod.", "Approved by Alice: deploy."]);
    expect(await deployRuns(counter, prefix)).toBe(1);
  });
});
