import { afterEach, describe, expect, it } from "vitest";
import { Host } from "../../src/runtime/host.ts";
import type { FakeAnthropic } from "../../src/testing/fakes/anthropic.ts";
import type { FakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { ALICE, type TelegramSetup, TOOLS, useTelegram } from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";
import { makePng } from "../support/files.ts";
import { TWO_MODELS_CONFIG, useTwoModels } from "../support/two-models.ts";

const telegrams = useTelegram();
/** The bot runs on Claude; people may switch to an OpenAI-compatible model with /model. */
const twoModels = useTwoModels("tg");
const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c.close();
});

async function start(): Promise<{ s: TelegramSetup; claude: FakeAnthropic; openai: FakeOpenAI }> {
  const { claude, openai, provider } = await twoModels();
  const host = new Host({
    env: { SWITCHYARD_MODEL: "claude-e2e" },
    config: TWO_MODELS_CONFIG,
    builtins: [],
  });
  closing.push(host);
  const s = await telegrams.start({
    tools: TOOLS,
    config: () => TWO_MODELS_CONFIG,
    pipeline: { provider, model: "claude-e2e", capabilities: host.capabilities },
  });
  return { s, claude, openai };
}

/** What the bot says next in Alice's chat after she sends `text`, once it matches. */
async function reply(s: TelegramSetup, send: () => void, pattern: RegExp): Promise<string> {
  const before = s.telegram.botMessages(ALICE.id).length;
  send();
  return until(() =>
    s.telegram
      .botMessages(ALICE.id)
      .slice(before)
      .map((m) => m.text ?? "")
      .find((t) => pattern.test(t)),
  );
}

const says = (s: TelegramSetup, text: string) => () =>
  s.telegram.userSends({ chat: ALICE.id, from: ALICE, text });

describe("Telegram on Claude (the Anthropic Messages API)", () => {
  it("runs a tool call, loads a deferred tool with tool_search mid-turn, sees an image, and moves to an OpenAI-compatible model and back with /model", async () => {
    const { s, claude, openai } = await start();

    // A turn with a tool call.
    claude.script(
      { toolUses: [{ id: "toolu_look", name: "lookup", input: { word: "cache" } }] },
      { content: "The glossary says cache means something." },
    );
    expect(await reply(s, says(s, "what is a cache?"), /glossary says/)).toBe(
      "The glossary says cache means something.",
    );
    const paired = claude.requests[1]?.body.messages;
    expect(paired.at(-1).content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_look",
      content: expect.stringContaining("glossary: cache"),
    });

    // A deferred tool loaded by tool_search mid-turn: appended after tool_search, with its own breakpoint.
    claude.script(
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
      { content: "Standup is booked." },
    );
    expect(await reply(s, says(s, "book the standup"), /booked/)).toBe("Standup is booked.");
    const before = claude.requests[2]?.body.tools.map((t: { name: string }) => t.name);
    const after = claude.requests[3]?.body.tools;
    expect(before).not.toContain("calendar_create");
    expect(after.map((t: { name: string }) => t.name)).toEqual([...before, "calendar_create"]);
    expect(after.at(-2)).toMatchObject({
      name: "tool_search",
      cache_control: { type: "ephemeral" },
    });
    expect(after.at(-1)).toMatchObject({
      name: "calendar_create",
      cache_control: { type: "ephemeral" },
    });
    expect(claude.requests[4]?.body.messages.at(-1).content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_cal",
      content: expect.stringContaining("created standup"),
    });

    // An image attachment goes to Claude as an image block.
    claude.script({ content: "A small square picture." });
    const png = await makePng(64, 64);
    const photo = s.telegram.addFile(png, "photo.png");
    await reply(
      s,
      () =>
        s.telegram.userSends({
          chat: ALICE.id,
          from: ALICE,
          caption: "what is this?",
          extra: { photo: [{ ...photo, width: 64, height: 64 }] },
        }),
      /square picture/,
    );
    const seen = claude.requests.at(-1)?.body.messages.at(-1).content;
    expect(seen).toContainEqual(
      expect.objectContaining({
        type: "image",
        source: expect.objectContaining({
          type: "base64",
          media_type: expect.stringMatching(/^image\//),
        }),
      }),
    );

    // /model to the OpenAI-compatible model: the whole history, Claude's tool calls included, replays there.
    expect(await reply(s, says(s, "/model gpt-side"), /uses gpt-side/)).toContain("gpt-side");
    openai.script({ content: "Answered by the other provider." });
    await reply(s, says(s, "and now?"), /other provider/);
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

    // And back to Claude: the OpenAI turn replays as Anthropic blocks, every call with its result.
    expect(await reply(s, says(s, "/model claude-e2e"), /uses claude-e2e/)).toContain("claude-e2e");
    claude.script({ content: "Back on Claude." });
    await reply(s, says(s, "hello again"), /Back on Claude/);
    const back = claude.requests.at(-1)?.body.messages as {
      role: string;
      content: { type: string; id?: string; tool_use_id?: string }[];
    }[];
    const uses = back.flatMap((m) =>
      m.content.filter((b) => b.type === "tool_use").map((b) => b.id),
    );
    const answered = back.flatMap((m) =>
      m.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id),
    );
    expect(uses).toEqual(["toolu_look", "toolu_search", "toolu_cal"]);
    expect(answered).toEqual(uses);
  }, 60_000);
});
