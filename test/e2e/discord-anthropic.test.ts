import { afterEach, describe, expect, it } from "vitest";
import type { FakeAnthropic } from "../../src/testing/fakes/anthropic.ts";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import type { FakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";
import {
  botPosts,
  type DiscordSetup,
  HUMAN,
  interact,
  MANAGE_SERVER,
  shown,
  startDiscordBot,
} from "../support/discord.ts";
import { makePng } from "../support/files.ts";
import { TWO_MODELS_CONFIG, useTwoModels } from "../support/two-models.ts";

/** The bot runs on Claude; people may switch to an OpenAI-compatible model with /model. */
const twoModels = useTwoModels("discord");
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c.close();
});

async function start(): Promise<{ s: DiscordSetup; claude: FakeAnthropic; openai: FakeOpenAI }> {
  const { claude, openai, provider } = await twoModels();
  const s = await startDiscordBot({
    // The ingress (and so /model) reads the same config as the worker.
    config: () => TWO_MODELS_CONFIG,
    pipeline: {
      provider,
      model: "claude-e2e",
      config: () => TWO_MODELS_CONFIG,
      capabilities: () => ({
        vision: { available: true },
        transcription: { available: false, reason: "no transcription endpoint" },
      }),
    },
  });
  closing.push(s);
  return { s, claude, openai };
}

/** `/model <name>` as an application command from someone with Manage Server; resolves to the bot's answer. */
async function switchModel(s: DiscordSetup, name: string): Promise<string> {
  const token = interact(s.discord, {
    type: 2,
    data: {
      id: "1500000000000000010",
      name: "model",
      type: 1,
      options: [{ type: 3, name: "name", value: name }],
    },
    permissions: MANAGE_SERVER,
  });
  return (await until(() => shown(s.discord, token))).content;
}

type Block = { type: string; id?: string; tool_use_id?: string };

/** A mention in the guild channel; resolves to the bot's answer once it is posted. */
async function mention(s: DiscordSetup, text: string, extra: Record<string, unknown> = {}) {
  const asked = s.discord.messageCreate({
    channelId: FAKE_DISCORD.channelId,
    authorId: HUMAN,
    content: `<@${FAKE_DISCORD.botUserId}> ${text}`,
    extra,
  });
  // The answer replies to the mention; a status line ("Using lookup…") while a tool runs does not.
  return until(
    () =>
      botPosts(s.discord, FAKE_DISCORD.channelId).find(
        (m) => m.message_reference?.message_id === asked.id,
      )?.content,
  );
}

describe("Discord on Claude (the Anthropic Messages API)", () => {
  it("runs a tool call and a tool_search load, and sends an attached image as an image block", async () => {
    const { s, claude } = await start();
    claude.script(
      { toolUses: [{ id: "toolu_look", name: "lookup", input: { word: "cache" } }] },
      {
        toolUses: [
          { id: "toolu_search", name: "tool_search", input: { load: ["calendar_create"] } },
        ],
      },
      {
        toolUses: [
          { id: "toolu_cal", name: "calendar_create", input: { title: "standup", at: "9:00" } },
        ],
      },
      { content: "Looked it up and booked the standup." },
    );
    expect(await mention(s, "look up cache, then book the standup")).toBe(
      "Looked it up and booked the standup.",
    );
    expect(claude.requests[1]?.body.messages.at(-1).content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_look",
      content: expect.stringContaining("glossary: cache"),
    });
    expect(claude.requests[3]?.body.tools.at(-1)).toMatchObject({
      name: "calendar_create",
      cache_control: { type: "ephemeral" },
    });

    claude.script({ content: "A square picture." });
    const file = s.discord.addFile(await makePng(64, 64), "square.png", "image/png");
    expect(await mention(s, "see", { attachments: [file] })).toBe("A square picture.");
    const content = claude.requests.at(-1)?.body.messages.at(-1).content;
    expect(content).toContainEqual(
      expect.objectContaining({
        type: "image",
        source: expect.objectContaining({
          type: "base64",
          media_type: expect.stringMatching(/^image\//),
        }),
      }),
    );
  }, 60_000);

  it("moves a conversation from Claude to an OpenAI-compatible model and back with /model, every call replayed with its result", async () => {
    const { s, claude, openai } = await start();
    claude.script(
      { toolUses: [{ id: "toolu_look", name: "lookup", input: { word: "cache" } }] },
      { content: "Looked it up on Claude." },
    );
    expect(await mention(s, "look up cache")).toBe("Looked it up on Claude.");

    expect(await switchModel(s, "gpt-side")).toMatch(/uses gpt-side/);
    openai.script(
      {
        toolCalls: [{ id: "call_side", name: "lookup", arguments: { word: "prefix" } }],
      },
      { content: "Looked it up on the other provider." },
    );
    expect(await mention(s, "and prefix?")).toBe("Looked it up on the other provider.");
    const there = openai.requests.at(-1)?.body;
    expect(there.model).toBe("gpt-side");
    const calls = there.messages.flatMap((m: { tool_calls?: { id: string }[] }) =>
      (m.tool_calls ?? []).map((c) => c.id),
    );
    const results = there.messages
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { tool_call_id: string }) => m.tool_call_id);
    expect(calls).toEqual(["toolu_look", "call_side"]);
    expect(results).toEqual(calls);

    expect(await switchModel(s, "claude-e2e")).toMatch(/uses claude-e2e/);
    claude.script({ content: "Back on Claude." });
    expect(await mention(s, "hello again")).toBe("Back on Claude.");
    const back = claude.requests.at(-1)?.body;
    expect(back.model).toBe("claude-e2e");
    const messages = back.messages as { role: string; content: Block[] }[];
    const uses = messages.flatMap((m) =>
      m.content.filter((b) => b.type === "tool_use").map((b) => b.id),
    );
    const answered = messages.flatMap((m) =>
      m.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id),
    );
    expect(uses).toEqual(["toolu_look", "call_side"]);
    expect(answered).toEqual(uses);
  }, 60_000);
});
