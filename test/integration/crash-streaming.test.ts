import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { Inbox } from "../../src/store/inbox.ts";
import type { LocalServer } from "../../src/testing/fakes/local-server.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";
import { until } from "../support/channels.ts";
import { startLatencyProxy } from "../support/latency-proxy.ts";
import { uniquePrefix } from "../support/redis.ts";
import { type CrashWorkers, startCrashWorkers } from "../support/worker-crash.ts";
import { startWorkerProcess } from "../support/workers.ts";

const ANSWER =
  "Streaming answers arrive word by word, and this one is long enough to be edited several times before it ends.";
const GAVE_UP_NOTE = "I could not finish this answer";

interface Setup {
  slack: FakeSlackApi;
  fake: FakeOpenAI;
  crash: CrashWorkers;
  proxy?: LocalServer;
}

let setup: Setup | undefined;
afterEach(async () => {
  if (!setup) return;
  await setup.crash.close("SIGKILL");
  await setup.fake.close();
  await setup.proxy?.close();
  await setup.slack.close();
  setup = undefined;
});

/** A config file choosing how the workers stream on Slack. */
function streamingConfig(streaming: "native" | "edit"): string {
  const file = join(mkdtempSync(join(tmpdir(), "crashstream-")), "switchyard.yaml");
  writeFileSync(file, `slack:\n  streaming: ${streaming}\n`);
  return file;
}

async function start(
  fake: FakeOpenAI,
  count = 2,
  fromSlack?: (path: string) => number,
  // These cases watch post-and-edit; "a Slack worker killed while its native stream runs" the API.
  streaming: "native" | "edit" = "edit",
): Promise<Setup> {
  // Message timestamps on the wall clock, as Slack's are: a lost stream is looked for by when it began.
  const slack = await startFakeSlackApi({ startTs: Math.floor(Date.now() / 1_000) });
  const proxy = fromSlack
    ? await startLatencyProxy({ target: slack.origin, fromFake: fromSlack })
    : undefined;
  const crash = await startCrashWorkers(
    fake,
    uniquePrefix("crashstream"),
    {
      SLACK_BOT_TOKEN: FAKE_SLACK.botToken,
      SLACK_SIGNING_SECRET: "unused-by-workers",
      SLACK_API_URL: proxy ? `${proxy.url}/api/` : slack.url,
      SWITCHYARD_CONFIG: streamingConfig(streaming),
    },
    count,
  );
  setup = { slack, fake, crash, ...(proxy ? { proxy } : {}) };
  return setup;
}

const THREAD = "1700000000.000100";
const mention: InboundMessage = {
  platform: "slack",
  workspace: FAKE_SLACK.teamId,
  channel: "C0GENERAL",
  conversation: `C0GENERAL:${THREAD}`,
  thread: THREAD,
  user: "U0HUMAN",
  text: "tell me about streaming",
  attachments: [],
  eventId: `C0GENERAL:${THREAD}`,
  messageRef: THREAD,
  time: Date.now(),
};

const enqueue = ({ crash }: Setup) => crash.enqueue({ ...mention, time: Date.now() });

/** What the person sees in the thread: the bot's messages, each as last edited. */
const botMessages = (slack: FakeSlackApi) =>
  slack.messages.filter((m) => m.thread_ts === THREAD && m.bot_id).map((m) => m.text);

/** The words the "given up" case's partial must show: the kill waits until Slack shows them. */
const OPENING = "Streaming answers arrive word by word";

/**
 * Resolves once a post or edit of the streamed answer, sent after `since` and showing at
 * least {@link OPENING}, has been answered by Slack and followed by another: the partial is
 * visible, and the later call shows the run had taken in the earlier (its ref and text
 * recorded) before it sent on. Two calls alone could show a single word on a loaded machine.
 */
const streamedSince = (slack: FakeSlackApi, since: number) =>
  until(() => {
    const answered = slack.calls.filter(
      (c) =>
        (c.method === "chat.postMessage" || c.method === "chat.update") &&
        c.args.channel === mention.channel &&
        c.at >= since &&
        c.answeredAt !== undefined &&
        c.response?.ok === true,
    );
    // The worker records what an edit shows once Slack has answered it, before it sends the
    // next: a call after the one showing the opening means the opening is on record (the
    // partial a give-up finishes), not only on screen.
    const recorded = answered.at(-2)?.args.text;
    return typeof recorded === "string" && recorded.startsWith(OPENING) ? true : undefined;
  }, 30_000);

/**
 * Resolves once the conversation is at rest (nothing queued, no turn in progress, no lease)
 * and Slack has answered every call: from then on nothing can post or edit, so what the
 * thread shows is final. Waits on that, not on a fixed pause after the answer appeared.
 */
async function settled({ crash, slack }: Setup): Promise<void> {
  const inbox = new Inbox(crash.redis, crash.store.keys);
  const deadline = Date.now() + 15_000;
  while (!((await inbox.idle(mention)) && slack.calls.every((c) => c.answeredAt !== undefined))) {
    if (Date.now() > deadline) {
      throw new Error(
        `the conversation never came to rest; the thread shows ${JSON.stringify(botMessages(slack))}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a Slack worker killed while its answer streams", () => {
  it("leaves one message, edited into the whole answer by the worker that resumes", async () => {
    let asked = 0;
    const fake = await startFakeOpenAI({
      // The first run streams slowly (and is killed mid-way); the resumed run streams at once.
      responder: () => ({ content: ANSWER, chunkDelayMs: ++asked === 1 ? 400 : 0 }),
    });
    const s = await start(fake);
    await enqueue(s);
    await s.slack.waitForCall("chat.postMessage", { timeoutMs: 20_000 });
    await s.crash.killLeaseHolder(mention);
    await until(() => (asked === 2 ? true : undefined), 30_000);
    await until(() => (botMessages(s.slack).includes(ANSWER) ? true : undefined), 30_000);
    await settled(s);
    expect(botMessages(s.slack)).toEqual([ANSWER]);
    expect(asked).toBe(2);
  }, 120_000);

  it("also when the kill lands after the post reached Slack but before its ref was stored", async () => {
    let asked = 0;
    const fake = await startFakeOpenAI({
      responder: () => ({ content: ANSWER, chunkDelayMs: ++asked === 1 ? 400 : 0 }),
    });
    // Slack makes the streamed post at once but its answer takes 3 s to come back: the kill lands in between.
    let slow = true;
    const s = await start(fake, 2, (path) => {
      if (!path.includes("chat.postMessage") || !slow) return 0;
      slow = false;
      return 3_000;
    });
    await enqueue(s);
    await until(() => (s.slack.messages.some((m) => m.bot_id) ? true : undefined), 20_000);
    await s.crash.killLeaseHolder(mention);
    await until(() => (botMessages(s.slack).includes(ANSWER) ? true : undefined), 30_000);
    await settled(s);
    expect(botMessages(s.slack)).toEqual([ANSWER]);
  }, 120_000);

  it("given up after repeated kills that made no progress, finishes the partial instead of posting an apology beside it", async () => {
    // Every run streams the start of the answer, then hangs: each is killed there.
    const content = `${ANSWER} ${"more ".repeat(200)}`;
    const askedAt: number[] = [];
    const fake = await startFakeOpenAI({
      responder: () => {
        askedAt.push(Date.now());
        return { content, chunkDelayMs: 150 };
      },
    });
    const s = await start(fake, 2);
    await enqueue(s);
    const gaveUp = () => botMessages(s.slack).some((t) => t?.includes(GAVE_UP_NOTE));
    for (let kill = 0; kill < 4; kill++) {
      // Run `kill + 1` is the one asking the model now, unless the turn was given up already:
      // the limit counts pickups, not model requests, and a pickup that ends before its request
      // (seen in full-suite runs) brings the give-up one kill sooner.
      await until(() => (fake.requests.length > kill || gaveUp() ? true : undefined), 30_000).catch(
        (error: Error) => {
          throw new Error(
            `${error.message} for model request ${kill + 1}; the thread shows ${JSON.stringify(botMessages(s.slack))}\n${s.crash.workers.map((w) => w.logs()).join("\n")}`,
          );
        },
      );
      if (fake.requests.length <= kill) break;
      // Kill once this run has streamed something the person sees (posts or edits that reached
      // Slack after its model request began), not a fixed 2.5 s later: a loaded machine may not
      // have streamed anything by then, and a run killed before it streams is another case.
      await streamedSince(s.slack, askedAt[kill] ?? 0).catch((error: Error) => {
        throw new Error(
          `${error.message}: run ${kill + 1} streamed nothing; the thread shows ${JSON.stringify(botMessages(s.slack))}\n${s.crash.workers.map((w) => w.logs()).join("\n")}`,
        );
      });
      const victim = await s.crash.killLeaseHolder(mention);
      s.crash.workers.splice(s.crash.workers.indexOf(victim), 1);
      s.crash.workers.push(await startWorkerProcess(s.crash.env));
    }
    const shown = await until(() => {
      const texts = botMessages(s.slack);
      return texts.some((t) => t?.includes(GAVE_UP_NOTE)) ? texts : undefined;
    }, 40_000).catch((error: Error) => {
      throw new Error(
        `${error.message}; the thread shows ${JSON.stringify(botMessages(s.slack))}; asked ${fake.requests.length} times\n${s.crash.workers.map((w) => w.logs()).join("\n")}`,
      );
    });
    await settled(s);
    expect(botMessages(s.slack)).toEqual(shown);
    expect(shown).toHaveLength(1);
    // The partial the runs streamed, cut where they were killed, then the note: not the apology.
    const [partial, note] = (shown[0] ?? "").split("\n\n");
    expect(partial).toMatch(/^Streaming answers arrive word by word/);
    expect(content.startsWith(partial ?? "")).toBe(true);
    expect(partial?.length).toBeLessThan(content.trimEnd().length);
    expect(note).toContain(GAVE_UP_NOTE);
    expect(shown.join("\n")).not.toMatch(/Sorry/);
    // The conversation moved on: nothing left in its inbox, no turn in progress.
    expect(await new Inbox(s.crash.redis, s.crash.store.keys).idle(mention)).toBe(true);
  }, 180_000);
});

describe("a Slack worker killed while its native stream runs", () => {
  /** The streams' calls that reached Slack, and the one message the thread must end with. */
  const streamCalls = (slack: FakeSlackApi) =>
    slack.calls.filter((c) => c.method.startsWith("chat.") && c.method.endsWith("Stream"));

  it("leaves one message: the resumed worker finishes the recorded stream with the whole answer", async () => {
    let asked = 0;
    const fake = await startFakeOpenAI({
      responder: () => ({ content: ANSWER, chunkDelayMs: ++asked === 1 ? 400 : 0 }),
    });
    const s = await start(fake, 2, undefined, "native");
    await enqueue(s);
    // An append follows the start only once the stream's ts is recorded.
    await s.slack.waitForCall("chat.appendStream", { timeoutMs: 20_000 });
    await s.crash.killLeaseHolder(mention);
    await until(() => (asked === 2 ? true : undefined), 30_000);
    await until(() => (botMessages(s.slack).includes(ANSWER) ? true : undefined), 30_000);
    await settled(s);
    expect(botMessages(s.slack)).toEqual([ANSWER]);
    // One stream, ended; no message posted beside it.
    expect(s.slack.streams).toHaveLength(1);
    expect(s.slack.streams[0]?.stopped).toBe(true);
    expect(s.slack.callsTo("chat.postMessage")).toHaveLength(0);
    expect(streamCalls(s.slack).filter((c) => c.method === "chat.startStream")).toHaveLength(1);
  }, 120_000);

  it("also when the kill lands after Slack started the stream but before its ts was recorded", async () => {
    let asked = 0;
    const fake = await startFakeOpenAI({
      responder: () => ({ content: ANSWER, chunkDelayMs: ++asked === 1 ? 400 : 0 }),
    });
    // Slack starts the stream at once but its answer takes 3 s to come back: the kill lands in between.
    let slow = true;
    const s = await start(
      fake,
      2,
      (path) => {
        if (!path.includes("chat.startStream") || !slow) return 0;
        slow = false;
        return 3_000;
      },
      "native",
    );
    await enqueue(s);
    await until(() => (s.slack.messages.some((m) => m.bot_id) ? true : undefined), 20_000);
    await s.crash.killLeaseHolder(mention);
    await until(() => (botMessages(s.slack).includes(ANSWER) ? true : undefined), 30_000);
    await settled(s);
    expect(botMessages(s.slack)).toEqual([ANSWER]);
    expect(s.slack.streams).toHaveLength(1);
    expect(s.slack.streams[0]?.stopped).toBe(true);
  }, 120_000);
});
