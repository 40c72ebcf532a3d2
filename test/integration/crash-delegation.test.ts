import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConversationAddress, conversationKey } from "../../src/core/conversation.ts";
import { RedisOutbox } from "../../src/platforms/terminal/outbox.ts";
import { type LocalServer, listenLocal } from "../../src/testing/fakes/local-server.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { reminderQueue } from "../../src/tools/reminders/index.ts";
import { uniquePrefix } from "../support/redis.ts";
import { type CrashWorkers, startCrashWorkers, typedMessage } from "../support/worker-crash.ts";
import { firstPosts } from "../support/workers.ts";

const address: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "delegation",
};

const LEAD = "You are the lead of the desk.";
const RESEARCHER = "You are the researcher.";

/**
 * The lead agent hands a task to the researcher (`ask_agent`). The
 * researcher's first step searches the web (a search service that counts
 * its calls); its second step's model request hangs, and the worker running
 * the turn is killed there. The worker that takes the conversation over
 * finishes the child from the checkpoint: the search is not run again, the
 * lead is not asked again, and one answer is posted.
 */
/** A config where the lead (bound to the console) may ask the researcher, who searches `searchUrl`. */
function writeLeadConfig(dir: string, searchUrl: string): string {
  const config = join(dir, "switchyard.yaml");
  writeFileSync(
    config,
    [
      "web:",
      `  search: { provider: searxng, url: "${searchUrl}", timeout_seconds: 60 }`,
      "agents:",
      "  - id: lead",
      `    persona: ${LEAD}`,
      "    delegates: [researcher]",
      "  - id: researcher",
      `    persona: ${RESEARCHER}`,
      "bindings:",
      '  - { agent: lead, channel: "console:terminal" }',
      "",
    ].join("\n"),
  );
  return config;
}

describe("a worker killed during a delegated agent's second step", () => {
  let fake: FakeOpenAI;
  let crash: CrashWorkers;
  let search: LocalServer;
  let dir: string;
  let searches = 0;
  let leadAsked = 0;
  let childSecond = 0;

  beforeAll(async () => {
    search = await listenLocal((_req, res) => {
      searches++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          results: [{ title: "Tea", url: "https://tea.example", content: "Tea is a drink." }],
        }),
      );
    });
    dir = mkdtempSync(join(tmpdir(), "sy-delegation-"));
    const config = writeLeadConfig(dir, search.url);
    fake = await startFakeOpenAI({
      responder: (request: RecordedRequest) => {
        const system = String(request.body.messages[0]?.content ?? "");
        const last = request.body.messages.at(-1);
        if (system.startsWith(RESEARCHER)) {
          if (last.role === "user") {
            return {
              toolCalls: [{ id: "call_search", name: "web_search", arguments: { query: "tea" } }],
            };
          }
          childSecond++;
          return childSecond === 1
            ? { content: "too late", delayMs: 60_000 }
            : { content: "Tea is a drink, brewed from leaves." };
        }
        if (last.role === "user") {
          leadAsked++;
          return {
            toolCalls: [
              {
                id: `call_ask_${leadAsked}`,
                name: "ask_agent",
                arguments: { agent: "researcher", task: "Find out what tea is." },
              },
            ],
          };
        }
        return { content: `The researcher says: ${String(last.content).split("\n")[1]}` };
      },
    });
    crash = await startCrashWorkers(fake, uniquePrefix("delegation"), {
      SWITCHYARD_CONFIG: config,
      SWITCHYARD_TOOL_TIMEOUT_MS: "60000",
    });
  }, 60_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
    await search?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("resumes the child from its checkpoint without re-running its first tool call; one answer", async () => {
    const { redis, prefix, store } = crash;
    await crash.enqueue(typedMessage(address, "what is tea? ask the researcher"));
    // Wait until the child's second model request hangs: its first step is stored.
    const deadline = Date.now() + 20_000;
    while (childSecond < 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(childSecond).toBe(1);
    // A step's write is pipelined beside the next model request (only a tool with effects
    // waits for it), so the request can arrive first: wait for the write, then kill.
    let stored = await store.turns.readCheckpoint(address);
    while (stored?.children?.call_ask_1?.step !== 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      stored = await store.turns.readCheckpoint(address);
    }
    expect(stored?.children?.call_ask_1).toMatchObject({ agent: "researcher", step: 1 });
    await crash.killLeaseHolder(address);

    const posts = await firstPosts(redis, prefix);
    expect(posts.map((p) => p.text)).toEqual([
      "The researcher says: Tea is a drink, brewed from leaves.",
    ]);
    // The child's search ran once; the lead was asked for its step once; the child's step twice.
    expect(searches).toBe(1);
    expect(leadAsked).toBe(1);
    expect(childSecond).toBe(2);
    // Only the lead's messages are in the conversation; the child's stay in the checkpoint, now gone.
    const history = await store.history.load(address);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(history[2]?.content).toBe("researcher answered:\nTea is a drink, brewed from leaves.");
    const until = Date.now() + 10_000;
    while ((await store.turns.readCheckpoint(address)) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await store.turns.readCheckpoint(address)).toBeUndefined();
    const outbox = new RedisOutbox(redis, prefix, conversationKey);
    expect((await outbox.read("0", 200)).filter((e) => e.kind === "post")).toHaveLength(1);
  }, 60_000);
});

/**
 * The child's own step calls a tool with effects (set_reminder) beside one
 * that hangs (web_search), and the worker dies there. The child's calls
 * were stored before they ran, so the resumed child runs the same calls
 * with the same keys: one reminder, and the child's model is asked for
 * that step once.
 */
describe("a worker killed while a delegated agent's tool with effects runs", () => {
  let fake: FakeOpenAI;
  let crash: CrashWorkers;
  let search: LocalServer;
  let dir: string;
  let searches = 0;
  let childAsked = 0;

  beforeAll(async () => {
    search = await listenLocal((_req, res) => {
      searches++;
      if (searches === 1) return; // hangs: the worker is killed while it waits
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ results: [{ title: "Tea", url: "https://t.example", content: "Tea." }] }),
      );
    });
    dir = mkdtempSync(join(tmpdir(), "sy-delegation-effects-"));
    const config = writeLeadConfig(dir, search.url);
    fake = await startFakeOpenAI({
      responder: (request: RecordedRequest) => {
        const system = String(request.body.messages[0]?.content ?? "");
        const last = request.body.messages.at(-1);
        if (system.startsWith(RESEARCHER)) {
          if (last.role !== "user") return { content: "Reminder set; tea found." };
          childAsked++;
          return {
            toolCalls: [
              {
                id: `call_remind_${childAsked}`,
                name: "set_reminder",
                arguments: { text: "brew tea", in: "2h" },
              },
              { id: `call_search_${childAsked}`, name: "web_search", arguments: { query: "tea" } },
            ],
          };
        }
        if (last.role === "user") {
          return {
            toolCalls: [
              {
                id: "call_ask",
                name: "ask_agent",
                arguments: { agent: "researcher", task: "Remind me to brew tea; look tea up." },
              },
            ],
          };
        }
        return { content: "Done: the researcher set it." };
      },
    });
    crash = await startCrashWorkers(fake, uniquePrefix("delegation-effects"), {
      SWITCHYARD_CONFIG: config,
      SWITCHYARD_TOOL_TIMEOUT_MS: "60000",
    });
  }, 60_000);

  afterAll(async () => {
    await crash?.close();
    await fake?.close();
    await search?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("resumes the child with its stored calls and sets the reminder once", async () => {
    const { redis, prefix } = crash;
    await crash.enqueue(typedMessage(address, "remind me to brew tea, via the researcher"));
    const reminders = reminderQueue(redis, prefix);
    try {
      const deadline = Date.now() + 20_000;
      while (
        (searches < 1 || ((await reminders.getJobCounts("delayed")).delayed ?? 0) < 1) &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(searches).toBe(1);
      await crash.killLeaseHolder(address);
      const posts = await firstPosts(redis, prefix);
      expect(posts.map((p) => p.text)).toEqual(["Done: the researcher set it."]);
      expect(childAsked).toBe(1);
      // The resumed child ran its stored web_search again. A call without effects may run
      // again at every pickup: on a loaded machine the 1.5 s lease can lapse while the first
      // search hangs, and a pickup before the kill adds one. The reminder, with effects, is set once.
      expect(searches).toBeGreaterThanOrEqual(2);
      expect((await reminders.getJobCounts("delayed")).delayed).toBe(1);
    } finally {
      await reminders.close();
    }
  }, 60_000);
});
