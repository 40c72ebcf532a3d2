import { afterEach, describe, expect, it } from "vitest";
import { providerFromEnv } from "../../src/bot/provider-env.ts";
import { EMPTY_CONFIG } from "../../src/core/config/index.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../fakes/anthropic.ts";
import { FAKE_DISCORD } from "../fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import { botPosts, type DiscordSetup, HUMAN, startDiscordBot } from "../support/discord.ts";
import { makePng } from "../support/files.ts";

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c.close();
});

async function start(): Promise<{ s: DiscordSetup; claude: FakeAnthropic }> {
  const claude = await startFakeAnthropic({ apiKey: "sk-ant-discord" });
  closing.push(claude);
  const provider = providerFromEnv(
    {
      ANTHROPIC_API_KEY: "sk-ant-discord",
      ANTHROPIC_BASE_URL: claude.url,
      SWITCHYARD_MODEL: "claude-e2e",
    },
    { warn: () => {} },
  );
  const s = await startDiscordBot({
    pipeline: {
      provider,
      model: "claude-e2e",
      config: () => EMPTY_CONFIG,
      capabilities: () => ({
        vision: { available: true },
        transcription: { available: false, reason: "no transcription endpoint" },
      }),
    },
  });
  closing.push(s);
  return { s, claude };
}

/** A mention in the guild channel; resolves to the bot's answer once it is posted. */
async function mention(s: DiscordSetup, text: string, extra: Record<string, unknown> = {}) {
  const before = botPosts(s.discord, FAKE_DISCORD.channelId).length;
  s.discord.messageCreate({
    channelId: FAKE_DISCORD.channelId,
    authorId: HUMAN,
    content: `<@${FAKE_DISCORD.botUserId}> ${text}`,
    extra,
  });
  return until(() => botPosts(s.discord, FAKE_DISCORD.channelId).at(before)?.content);
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
});
