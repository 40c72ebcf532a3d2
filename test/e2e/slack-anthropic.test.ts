import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeAnthropic } from "../../src/testing/fakes/anthropic.ts";
import type { FakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { messageEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import { makePng } from "../support/files.ts";
import { SLACK_SECRET, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";
import { TWO_MODELS_CONFIG, useTwoModels } from "../support/two-models.ts";

/** The bot runs on Claude; people may switch to an OpenAI-compatible model with /model. */
const twoModels = useTwoModels("slack");
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c.close();
});

async function start(): Promise<{ h: SlackHarness; claude: FakeAnthropic; openai: FakeOpenAI }> {
  const { claude, openai, provider } = await twoModels();
  const h = await startSlackHarness({
    config: () => TWO_MODELS_CONFIG,
    pipeline: {
      provider,
      model: "claude-e2e",
      capabilities: () => ({
        vision: { available: true },
        transcription: { available: false, reason: "no transcription endpoint" },
      }),
    },
  });
  closing.push(h);
  return { h, claude, openai };
}

/** Ada (a workspace admin, who may switch the model) types `text` in her DM; resolves to the bot's next message there that matches. */
async function say(h: SlackHarness, text: string, pattern: RegExp): Promise<string> {
  const posted = () => h.slack.messages.filter((m) => m.channel === "D0ADMIN" && m.bot_id);
  const before = posted().length;
  const sent = await sendEvent(
    h.events[0] as string,
    SLACK_SECRET,
    messageEvent({ text, user: "U0ADMIN", channel: "D0ADMIN", channelType: "im" }),
  );
  expect(sent.status).toBe(200);
  return until(() =>
    posted()
      .slice(before)
      .map((m) => String(m.text ?? ""))
      .find((t) => pattern.test(t)),
  );
}

describe("Slack on Claude (the Anthropic Messages API)", () => {
  it("sends an image shared in a DM to Claude as an image block, the picture intact", async () => {
    const { h, claude } = await start();
    const png = h.slack.addFile({
      name: "chart.png",
      mimetype: "image/png",
      content: await makePng(64, 48),
    });
    const { content: _bytes, ...fields } = png;
    claude.script({ content: "A small chart." });
    const posted = () => h.slack.messages.filter((m) => m.channel === "D0ADMIN" && m.bot_id);
    const sent = await sendEvent(h.events[0] as string, SLACK_SECRET, {
      ...messageEvent({
        text: "what is this?",
        user: "U0ADMIN",
        channel: "D0ADMIN",
        channelType: "im",
      }),
      subtype: "file_share",
      files: [fields],
    });
    expect(sent.status).toBe(200);
    await until(() => posted().find((m) => String(m.text ?? "").includes("A small chart.")));
    expect(h.slack.fileDownloads).toEqual([png.id]);
    const blocks = claude.requests.at(-1)?.body.messages.at(-1).content as {
      type: string;
      text?: string;
      source?: { type: string; media_type: string; data: string };
    }[];
    expect(blocks.some((b) => b.type === "text" && b.text?.includes("what is this?"))).toBe(true);
    const image = blocks.find((b) => b.type === "image");
    expect(image?.source).toMatchObject({
      type: "base64",
      media_type: expect.stringMatching(/^image\//),
    });
    const meta = await sharp(Buffer.from(image?.source?.data ?? "", "base64")).metadata();
    expect([meta.width, meta.height]).toEqual([64, 48]);
  }, 60_000);

  it("runs a tool call and a tool_search load on Claude, then /model moves the conversation to an OpenAI-compatible model with every call replayed", async () => {
    const { h, claude, openai } = await start();
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
    await say(h, "look up cache, then book the standup", /booked the standup/);
    expect(claude.requests).toHaveLength(4);
    expect(claude.requests[1]?.body.messages.at(-1).content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_look",
      content: expect.stringContaining("glossary: cache"),
    });
    const loaded = claude.requests[3]?.body.tools;
    expect(loaded.at(-1)).toMatchObject({
      name: "calendar_create",
      cache_control: { type: "ephemeral" },
    });

    await say(h, "!model gpt-side", /gpt-side/);
    openai.script({ content: "Answered by the other provider." });
    await say(h, "and now?", /other provider/);
    const replayed = openai.requests[0]?.body;
    expect(replayed.model).toBe("gpt-side");
    const calls = replayed.messages.flatMap((m: { tool_calls?: { id: string }[] }) =>
      (m.tool_calls ?? []).map((c) => c.id),
    );
    const results = replayed.messages
      .filter((m: { role: string }) => m.role === "tool")
      .map((m: { tool_call_id: string }) => m.tool_call_id);
    expect(calls).toEqual(["toolu_look", "toolu_search", "toolu_cal"]);
    expect(results).toEqual(calls);
  }, 60_000);
});
