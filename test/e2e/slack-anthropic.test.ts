import { afterEach, describe, expect, it } from "vitest";
import { providerFromEnv } from "../../src/bot/provider-env.ts";
import { parseConfig } from "../../src/core/config/index.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../fakes/anthropic.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../fakes/openai-server.ts";
import { messageEvent, sendEvent } from "../fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import { SLACK_SECRET, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";

/** The bot runs on Claude; people may switch to an OpenAI-compatible model with /model (typed `!model`). */
const CONFIG = parseConfig(
  [
    "model:",
    "  provider: anthropic",
    "models:",
    "  list:",
    "    - name: claude-e2e",
    "      provider: anthropic",
    "    - name: gpt-side",
    "      provider: openai",
    "access:",
    "  dm: open",
  ].join("\n"),
  "test.yaml",
);

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c.close();
});

async function start(): Promise<{ h: SlackHarness; claude: FakeAnthropic; openai: FakeOpenAI }> {
  const claude = await startFakeAnthropic({ apiKey: "sk-ant-slack" });
  const openai = await startFakeOpenAI();
  closing.push(claude, openai);
  const provider = providerFromEnv(
    {
      ANTHROPIC_API_KEY: "sk-ant-slack",
      ANTHROPIC_BASE_URL: claude.url,
      OPENAI_API_KEY: "sk-openai-slack",
      OPENAI_BASE_URL: openai.url,
      SWITCHYARD_MODEL: "claude-e2e",
    },
    { warn: () => {} },
    () => CONFIG.model,
    () => CONFIG.models,
  );
  const h = await startSlackHarness({
    config: () => CONFIG,
    pipeline: { provider, model: "claude-e2e" },
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
