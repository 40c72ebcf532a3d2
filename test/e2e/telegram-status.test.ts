import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/tools/tool.ts";
import { ALICE, useTelegram } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

const { start } = useTelegram();

/** A web_search of 2.5 s: three of them make a turn of about 8 s. */
const slowSearch = defineTool({
  id: "web_search",
  description: "Searches the web.",
  parameters: z.object({ query: z.string() }),
  execute: async ({ query }) => {
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    return `results for ${query}`;
  },
});

describe("Telegram chat actions on a real grammY bot", () => {
  it("shows typing while tools run, at most one action per 4 s however often the turn changes", async () => {
    const { telegram, pipe } = await start({ tools: [slowSearch] });
    const search = (query: string) => ({
      toolCalls: [{ name: "web_search", arguments: { query } }],
    });
    pipe.fake.script(search("a"), search("b"), search("c"), { content: "Done searching." });
    const began = Date.now();
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "search three times" });
    await until(() => (telegram.botMessages(ALICE.id).length ? true : undefined), 30_000);
    const seconds = (Date.now() - began) / 1_000;
    const actions = telegram.callsTo("sendChatAction");
    expect(actions.every((c) => c.status === 200 && c.params.action === "typing")).toBe(true);
    // An action lasts 5 s: one every 4 s keeps it shown; never more, whatever the tools do.
    expect(actions.length).toBeGreaterThanOrEqual(2);
    expect(actions.length).toBeLessThanOrEqual(Math.ceil(seconds / 4) + 1);
    for (let i = 1; i < actions.length; i++) {
      const gap = (actions[i]?.at ?? 0) - (actions[i - 1]?.at ?? 0);
      expect(gap).toBeGreaterThanOrEqual(3_900);
    }
  }, 40_000);
});
