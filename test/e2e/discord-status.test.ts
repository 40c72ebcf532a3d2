import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/tools/tool.ts";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import {
  botPosts,
  CHANNEL_ADDRESS,
  type DiscordSetup,
  HUMAN,
  startDiscordBot,
} from "../support/discord.ts";

let setup: DiscordSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** A web_search that takes its time, so the status line is seen while it runs. */
const slowSearch = defineTool({
  id: "web_search",
  description: "Searches the web.",
  parameters: z.object({ query: z.string() }),
  execute: async ({ query }) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return `results for ${query}`;
  },
});

const mention = (text: string) => `<@${FAKE_DISCORD.botUserId}> ${text}`;
const CHANNEL = FAKE_DISCORD.channelId;

/** Waits until the turn let go of the conversation: its status ended (line deleted or not) before that. */
async function turnOver({ pipe }: DiscordSetup): Promise<void> {
  const { lease, history } = pipe.app.store.keys.conversation(CHANNEL_ADDRESS);
  // The address is the conversation's: the turn wrote its history under it.
  expect(await pipe.app.redis.exists(history)).toBe(1);
  const deadline = Date.now() + 15_000;
  while ((await pipe.app.redis.exists(lease)) === 1) {
    if (Date.now() > deadline) throw new Error("the turn still holds the conversation");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
const messagesPath = new RegExp(`^/channels/${CHANNEL}/messages$`);
const messagePath = new RegExp(`^/channels/${CHANNEL}/messages/\\d+$`);

describe("the Discord status line on a real discord.js client", () => {
  it("posts one line while a tool runs, deletes it when the answer lands, and shows no query", async () => {
    setup = await startDiscordBot({ tools: [slowSearch] });
    const { pipe, discord } = setup;
    pipe.fake.script(
      { toolCalls: [{ name: "web_search", arguments: { query: "my private question" } }] },
      { content: "Here is what I found." },
    );
    discord.messageCreate({ channelId: CHANNEL, authorId: HUMAN, content: mention("look it up") });
    await until(() =>
      discord.calls.some((c) => c.method === "DELETE" && messagePath.test(c.path))
        ? true
        : undefined,
    );
    const posts = discord.calls.filter((c) => c.method === "POST" && messagesPath.test(c.path));
    expect(posts.map((c) => c.body.content)).toEqual([
      "Searching the web…",
      "Here is what I found.",
    ]);
    // The line is a message of its own: no reply, no ping.
    expect(posts[0]?.body.message_reference).toBeUndefined();
    const deletes = discord.calls.filter((c) => c.method === "DELETE");
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.status).toBe(204);
    expect(botPosts(discord, CHANNEL).map((m) => m.content)).toEqual(["Here is what I found."]);
    expect(JSON.stringify(posts.map((c) => c.body))).not.toContain("my private question");
  });

  it("posts no line and deletes nothing for an answer that runs no tool", async () => {
    setup = await startDiscordBot({ tools: [slowSearch] });
    const { pipe, discord } = setup;
    pipe.fake.script({ content: "Just an answer." });
    discord.messageCreate({ channelId: CHANNEL, authorId: HUMAN, content: mention("hello") });
    await until(() => (botPosts(discord, CHANNEL).length ? true : undefined));
    await turnOver(setup);
    const posts = discord.calls.filter((c) => c.method === "POST" && messagesPath.test(c.path));
    expect(posts.map((c) => c.body.content)).toEqual(["Just an answer."]);
    expect(discord.calls.filter((c) => c.method === "DELETE")).toEqual([]);
  });

  it("posts one line for a turn of many tools, and still deletes it once", async () => {
    setup = await startDiscordBot({ tools: [slowSearch] });
    const { pipe, discord } = setup;
    pipe.fake.script(
      {
        toolCalls: [
          { name: "web_search", arguments: { query: "a" } },
          { name: "web_search", arguments: { query: "b" } },
        ],
      },
      { toolCalls: [{ name: "web_search", arguments: { query: "c" } }] },
      { content: "Three searches later." },
    );
    discord.messageCreate({ channelId: CHANNEL, authorId: HUMAN, content: mention("dig") });
    await until(() => (botPosts(discord, CHANNEL).length ? true : undefined));
    await until(() => (discord.calls.some((c) => c.method === "DELETE") ? true : undefined));
    await turnOver(setup);
    const posts = discord.calls.filter((c) => c.method === "POST" && messagesPath.test(c.path));
    expect(posts.map((c) => c.body.content)).toEqual([
      "Searching the web…",
      "Three searches later.",
    ]);
    expect(discord.calls.filter((c) => c.method === "DELETE")).toHaveLength(1);
    expect(botPosts(discord, CHANNEL).map((m) => m.content)).toEqual(["Three searches later."]);
  });
});
