import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/conversation.ts";
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
  conversation: "effects",
};

/**
 * A worker dies while a step's tools run: one with effects (set_reminder) has
 * run, another (web_search, against a search service that hangs the first
 * time) has not answered. The model, like a real one, gives new call ids
 * each time it is asked. The turn must resume with the stored calls, so the
 * reminder is set once.
 */
describe("a worker killed while a tool with effects runs", () => {
  let fake: FakeOpenAI;
  let crash: CrashWorkers;
  let search: LocalServer;
  let searches = 0;
  let dir: string;
  let asked = 0;

  beforeAll(async () => {
    search = await listenLocal((_req, res) => {
      searches++;
      if (searches === 1) return; // hangs: the worker is killed while it waits
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          results: [{ title: "Tea", url: "https://tea.example", content: "Tea." }],
        }),
      );
    });
    dir = mkdtempSync(join(tmpdir(), "sy-effects-"));
    const config = join(dir, "switchyard.yaml");
    writeFileSync(
      config,
      `web:\n  search: { provider: searxng, url: "${search.url}", timeout_seconds: 60 }\n`,
    );
    fake = await startFakeOpenAI({
      responder: (request: RecordedRequest) => {
        const last = request.body.messages.at(-1);
        if (last.role !== "user") return { content: "Reminder set, and tea found." };
        asked++;
        return {
          toolCalls: [
            {
              id: `call_remind_${asked}`,
              name: "set_reminder",
              arguments: { text: "brew tea", in: "2h" },
            },
            { id: `call_search_${asked}`, name: "web_search", arguments: { query: "tea" } },
          ],
        };
      },
    });
    crash = await startCrashWorkers(fake, uniquePrefix("effects"), {
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

  it("resumes with the stored calls and sets the reminder once", async () => {
    const { redis, prefix, store } = crash;
    await crash.enqueue(typedMessage(address, "remind me to brew tea in 2 hours, and look up tea"));
    const reminders = reminderQueue(redis, prefix);
    try {
      // Wait until the reminder is set and the search hangs: the step is half done.
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
      expect(posts.map((p) => p.text)).toEqual(["Reminder set, and tea found."]);
      // The model was asked for the step once; the same calls ran again, so one reminder.
      expect(asked).toBe(1);
      // The search (no effects) ran again on resume; on a loaded machine a resumed run may
      // lose its lease and be resumed once more, searching again, which is allowed: only a
      // tool with effects is held to once.
      expect(searches).toBeGreaterThanOrEqual(2);
      expect((await reminders.getJobCounts("delayed")).delayed).toBe(1);
      const history = await store.history.load(address);
      expect(history.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
      ]);
    } finally {
      await reminders.close();
    }
  }, 60_000);
});
