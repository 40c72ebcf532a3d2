import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelText } from "../../src/core/conversation.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { threadTitle, viewingNote } from "../../src/platforms/slack/assistant.ts";
import { MAX_SUGGESTED_PROMPTS } from "../../src/platforms/slack/assistant-config.ts";
import { readAssistantThreadEvent } from "../../src/platforms/slack/assistant-event.ts";
import {
  cut,
  FALLBACK_PROMPTS,
  skillPrompt,
  suggestedPrompts,
} from "../../src/platforms/slack/assistant-prompts.ts";
import { schemeKeyKind } from "../../src/store/key-parse.ts";
import { KeyScheme } from "../../src/store/keys.ts";
import { assistantThreadEvent } from "../../src/testing/fakes/slack-requests.ts";
import { slackFixtures } from "../fakes/slack-fixtures.ts";
import { readRepoFile } from "../support/deploy.ts";

const started = slackFixtures("events").find((f) => f.name === "events/assistant-thread-started");

describe("reading an assistant pane event", () => {
  it("reads the thread, who opened it and what they look at, from Slack's shape", () => {
    expect(readAssistantThreadEvent(started?.body.event)).toEqual({
      type: "assistant_thread_started",
      user: "W0LW8NZE5",
      channel: "D0LWDM001",
      thread: "1700968048.791906",
      context: { channel: "C0LWROTA2", team: "T0LWK4Q7M", enterprise: "E0LWK2ORG" },
      eventTs: "1700968048.840626",
    });
    const changed = assistantThreadEvent("assistant_thread_context_changed", {
      channel: "D0HUMAN",
      threadTs: "1700000000.000100",
    });
    expect(readAssistantThreadEvent(changed)).toEqual({
      type: "assistant_thread_context_changed",
      user: "U0HUMAN",
      channel: "D0HUMAN",
      thread: "1700000000.000100",
      // enterprise_id: null outside Enterprise Grid is no enterprise.
      context: { channel: "C0GENERAL", team: "T0FAKETEAM" },
      eventTs: changed.event_ts,
    });
  });

  it.each(
    slackFixtures("events").filter((f) =>
      String(f.body?.event?.type).startsWith("assistant_thread"),
    ),
  )("reads $name", (f) => {
    const read = readAssistantThreadEvent(f.body.event);
    expect(read?.type).toBe(f.body.event.type);
    expect(read?.thread).toBe(f.body.event.assistant_thread.thread_ts);
    expect(read?.context.channel).toBe(f.body.event.assistant_thread.context.channel_id);
  });

  it("drops a context of the wrong shape, or a field of it, and keeps the thread", () => {
    const base = { user_id: "U1", channel_id: "D1", thread_ts: "1.2" };
    for (const context of [null, "C1", [], 7, { channel_id: 7 }, {}]) {
      expect(
        readAssistantThreadEvent({
          type: "assistant_thread_started",
          assistant_thread: { ...base, context },
        })?.context,
      ).toEqual({});
    }
    expect(
      readAssistantThreadEvent({
        type: "assistant_thread_started",
        assistant_thread: { ...base, context: { channel_id: "C1", team_id: "not an id" } },
      })?.context,
    ).toEqual({ channel: "C1" });
  });

  it("is undefined for another type, no thread, or ids that are not Slack's", () => {
    for (const event of [
      undefined,
      null,
      "assistant_thread_started",
      { type: "message", assistant_thread: { user_id: "U1", channel_id: "D1", thread_ts: "1.2" } },
      { type: "assistant_thread_started" },
      { type: "assistant_thread_started", assistant_thread: { user_id: "U1", channel_id: "D1" } },
      {
        type: "assistant_thread_started",
        assistant_thread: { user_id: "U1", channel_id: "D1:x", thread_ts: "1.2" },
      },
      {
        type: "assistant_thread_started",
        assistant_thread: { user_id: "U1", channel_id: "D1", thread_ts: "1.2; DROP" },
      },
    ]) {
      expect(readAssistantThreadEvent(event)).toBeUndefined();
    }
  });

  it("never throws, and gives only Slack-shaped ids, whatever the payload", () => {
    const id = fc.oneof(fc.constantFrom("U1", "D1", "C1", "T1", "E1"), fc.jsonValue());
    const shaped = fc.record(
      {
        type: fc.oneof(
          fc.constantFrom("assistant_thread_started", "assistant_thread_context_changed"),
          fc.jsonValue(),
        ),
        assistant_thread: fc.oneof(
          fc.record(
            {
              user_id: id,
              channel_id: id,
              thread_ts: fc.oneof(fc.constant("1700000000.000100"), fc.jsonValue()),
              context: fc.oneof(
                fc.record(
                  { channel_id: id, team_id: id, enterprise_id: fc.oneof(id, fc.constant(null)) },
                  { requiredKeys: [] },
                ),
                fc.jsonValue(),
              ),
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(shaped, fc.jsonValue()), (event) => {
        const read = readAssistantThreadEvent(event);
        if (!read) return;
        for (const value of [read.user, read.channel, ...Object.values(read.context)]) {
          expect(value).toMatch(/^[A-Z0-9]{2,40}$/);
        }
        expect(read.thread).toMatch(/^\d+\.\d+$/);
      }),
    );
  });
});

describe("the suggested prompts of a pane thread", () => {
  const assistant = parseConfig(
    [
      "slack:",
      "  assistant:",
      "    title: Try asking",
      "    prompts: [{ title: Everywhere, message: everywhere }]",
      "    workspaces:",
      "      T0123:",
      "        prompts: [{ title: Team, message: team }]",
      "    channels:",
      "      C0123:",
      "        title: Here",
      "        prompts: [{ title: Channel, message: channel }]",
    ].join("\n"),
    "s.yaml",
  ).slack.assistant;
  const skills = [
    { name: "meeting-notes", description: "Turns notes into decisions. And more." },
    { name: "bot-guide", description: "How to use this bot" },
  ];

  it("are the viewed channel's, else the workspace's, else everywhere's; the heading follows", () => {
    expect(suggestedPrompts(assistant, { workspace: "T0123", channel: "C0123" }, skills)).toEqual({
      title: "Here",
      prompts: [{ title: "Channel", message: "channel" }],
    });
    expect(suggestedPrompts(assistant, { workspace: "T0123", channel: "C0456" }, skills)).toEqual({
      title: "Try asking",
      prompts: [{ title: "Team", message: "team" }],
    });
    expect(suggestedPrompts(assistant, { workspace: "T2" }, skills)).toEqual({
      title: "Try asking",
      prompts: [{ title: "Everywhere", message: "everywhere" }],
    });
  });

  it("are one per enabled skill, in order, when none are configured, else a plain one", () => {
    expect(suggestedPrompts(undefined, { workspace: "T1" }, skills)).toEqual({
      prompts: [
        {
          title: "meeting-notes",
          message: "Use the meeting-notes skill: Turns notes into decisions.",
        },
        { title: "bot-guide", message: "Use the bot-guide skill: How to use this bot" },
      ],
    });
    expect(suggestedPrompts(undefined, { workspace: "T1" }, [])).toEqual({
      prompts: FALLBACK_PROMPTS,
    });
  });

  it("are one to four prompts with a title and a message, whatever the skills say", () => {
    const skill = fc.record({ name: fc.string({ minLength: 1 }), description: fc.string() });
    fc.assert(
      fc.property(fc.array(skill, { maxLength: 10 }), (list) => {
        const { prompts } = suggestedPrompts(undefined, { workspace: "T1" }, list);
        expect(prompts.length).toBeGreaterThanOrEqual(1);
        expect(prompts.length).toBeLessThanOrEqual(MAX_SUGGESTED_PROMPTS);
        for (const p of prompts) {
          expect([...p.title].length).toBeLessThanOrEqual(40);
          expect(p.message.length).toBeGreaterThan(0);
        }
      }),
    );
  });

  it("name a skill without a description plainly, and cut a long name at a word", () => {
    expect(skillPrompt({ name: "x", description: "   " })).toEqual({
      title: "x",
      message: "Use the x skill.",
    });
    expect(
      skillPrompt({
        name: "summarize every quarterly report we have ever written",
        description: "",
      }).title,
    ).toBe("summarize every quarterly report we…");
  });
});

describe("the slack.assistant config", () => {
  const parse = (yaml: string) => parseConfig(`slack:\n  assistant:\n${yaml}`, "s.yaml");

  it("is absent unless written, so the slack section reads as before", () => {
    expect(parseConfig("", "s.yaml").slack.assistant).toBeUndefined();
    expect(parse("    prompts: []\n").slack.assistant).toEqual({
      prompts: [],
      workspaces: {},
      channels: {},
    });
  });

  it("names what is wrong: too many prompts, a channel by name, a prompt without a message, an unknown key", () => {
    const five = Array.from({ length: 5 }, (_, i) => `{ title: t${i}, message: m${i} }`).join(", ");
    expect(() => parse(`    prompts: [${five}]\n`)).toThrow(
      /Slack shows at most 4 suggested prompts; keep the 4 that matter most/,
    );
    expect(() => parse("    channels:\n      general: { prompts: [] }\n")).toThrow(
      /"general" is not a Slack channel id\. Use the id \(C0123ABCD\), not the name/,
    );
    expect(() => parse("    prompts: [{ title: Hi }]\n")).toThrow(
      /slack\.assistant\.prompts\[0\]\.message: expected the message it sends/,
    );
    expect(() => parse("    prompt: []\n")).toThrow(
      /unknown key "prompt"\. The assistant pane takes title:, prompts:, workspaces: and channels:/,
    );
  });
});

describe("what the turn is told about the pane", () => {
  it("names the viewed channel, by name where Slack gave one, before the person's words", () => {
    const note = viewingNote({
      user: "U1",
      context: { channel: "C1", team: "T1" },
      channelName: "general",
    });
    expect(note).toBe(
      "Slack assistant pane: the person is looking at channel #general (C1) while writing this.",
    );
    expect(viewingNote({ user: "U1", context: { channel: "C1" } })).toContain("channel C1 while");
    expect(viewingNote({ user: "U1", context: {} })).toBeUndefined();
    expect(modelText({ text: "hi", platformContext: note })).toBe(`[${note}]\n\nhi`);
    expect(modelText({ text: "hi" })).toBe("hi");
  });

  it("titles a thread with the first line of its first message, cut at a word", () => {
    expect(threadTitle("\n\n  Plan   the offsite \nfor May")).toBe("Plan the offsite");
    expect(threadTitle("   ")).toBe("New chat");
    fc.assert(
      fc.property(fc.string(), (text) => {
        const title = threadTitle(text);
        expect([...title].length).toBeLessThanOrEqual(60);
        expect(title).not.toMatch(/\n/);
        expect(title.length).toBeGreaterThan(0);
      }),
    );
  });

  it("cuts text to at most the length asked, keeping its start", () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 2, max: 80 }), (text, max) => {
        const out = cut(text, max);
        expect([...out].length).toBeLessThanOrEqual(max);
        const kept = out.endsWith("…") ? out.slice(0, -1) : out;
        expect(text.trim().startsWith(kept.trimEnd())).toBe(true);
      }),
    );
  });
});

describe("the pane thread's key", () => {
  it("is in the workspace's slot", () => {
    const keys = new KeyScheme("sy");
    const key = keys.assistantThread(
      { platform: "slack", workspace: "T1", channel: "D1" },
      "1700000000.000100",
    );
    expect(key).toBe("sy:{ws:slack:T1}:assistant:D1:1700000000.000100");
    expect(schemeKeyKind("sy", key)).toBe("workspace");
  });
});

describe("the assistant pane's page in the docs", () => {
  it("shows the call its config example makes", () => {
    const page = readRepoFile("docs/platforms/slack.md");
    const section = page.slice(page.indexOf("## The assistant pane"));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    const json = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)?.[1] ?? "{}");
    const assistant = parseConfig(yaml, "slack.md").slack.assistant;
    const set = suggestedPrompts(assistant, { workspace: "T0999", channel: "C0123ABCD" }, []);
    expect({ channel_id: json.channel_id, thread_ts: json.thread_ts, ...set }).toEqual(json);
  });
});
