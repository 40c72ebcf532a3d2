import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/platforms/config.ts";
import type { FakeSlackApi } from "../../src/testing/fakes/slack-api.ts";
import {
  assistantThreadEvent,
  messageEvent,
  sendEvent,
} from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import {
  SLACK_SECRET,
  type SlackHarness,
  settle,
  useSlackHarness,
  visibleIn,
} from "../support/slack-harness.ts";

const startHarness = useSlackHarness();

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const DM = "D0HUMAN";

/** Opens a pane thread in the fake and sends Slack's `assistant_thread_started` for it. */
async function openPane(h: SlackHarness, context?: Record<string, string | null>) {
  const pane = h.slack.openAssistantThread("U0HUMAN", DM);
  const started = assistantThreadEvent("assistant_thread_started", {
    channel: DM,
    threadTs: pane.thread_ts,
    ...(context ? { context } : {}),
  });
  expect((await sendEvent(h.events[0] as string, SLACK_SECRET, started)).status).toBe(200);
  return pane;
}

function promptsCall(slack: FakeSlackApi, thread: string) {
  return slack.waitForCall("assistant.threads.setSuggestedPrompts", {
    where: (c) => c.args.thread_ts === thread,
  });
}

/** The user messages the fake model was sent, as text, in the order of its requests. */
function userTexts(h: SlackHarness): string[] {
  return h.pipe.fake.requests.map((r) => {
    const users = (r.body.messages as { role: string; content: unknown }[]).filter(
      (m) => m.role === "user",
    );
    const last = users.at(-1)?.content;
    return typeof last === "string" ? last : JSON.stringify(last);
  });
}

describe("Slack's assistant pane", () => {
  it("offers the prompts configured for the channel the person is looking at, else the workspace's, else everywhere's", async () => {
    const settings = parseConfig(
      [
        "slack:",
        "  assistant:",
        "    title: Try asking",
        "    prompts:",
        "      - { title: What can you do?, message: What can you help me with? }",
        "    workspaces:",
        "      T0OTHER:",
        "        prompts: [{ title: Other team, message: Hello from the other team }]",
        "    channels:",
        "      C0GENERAL:",
        '        title: "About #general"',
        "        prompts:",
        "          - { title: Catch me up, message: What happened in this channel today? }",
        "          - { title: Who is here?, message: Who talks most in this channel? }",
      ].join("\n"),
      "switchyard.yaml",
    ).slack;
    const h = await startHarness({ settings: () => settings });

    const general = await openPane(h);
    const call = await promptsCall(h.slack, general.thread_ts);
    expect(call.args).toMatchObject({ channel_id: DM, thread_ts: general.thread_ts });
    expect(call.response).toEqual({ ok: true });
    expect(h.slack.assistantThreads.get(`${DM}:${general.thread_ts}`)).toMatchObject({
      promptsTitle: "About #general",
      prompts: [
        { title: "Catch me up", message: "What happened in this channel today?" },
        { title: "Who is here?", message: "Who talks most in this channel?" },
      ],
    });

    const elsewhere = await openPane(h, { channel_id: "C0RANDOM", team_id: "T0FAKETEAM" });
    await promptsCall(h.slack, elsewhere.thread_ts);
    expect(h.slack.assistantThreads.get(`${DM}:${elsewhere.thread_ts}`)).toMatchObject({
      promptsTitle: "Try asking",
      prompts: [{ title: "What can you do?", message: "What can you help me with?" }],
    });

    const otherTeam = await openPane(h, { channel_id: "C0THEIRS", team_id: "T0OTHER" });
    await promptsCall(h.slack, otherTeam.thread_ts);
    expect(h.slack.assistantThreads.get(`${DM}:${otherTeam.thread_ts}`)?.prompts).toEqual([
      { title: "Other team", message: "Hello from the other team" },
    ]);
  });

  it("offers one prompt per enabled skill when none are configured", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sy-assistant-skills-"));
    dirs.push(dir);
    mkdirSync(join(dir, "release-notes"));
    writeFileSync(
      join(dir, "release-notes", "SKILL.md"),
      "---\nname: release-notes\ndescription: Drafts release notes from merged pull requests. Use before a release.\n---\n\nWrite them.\n",
    );
    const h = await startHarness({ skillFolders: { global: [dir], workspaces: {} } });
    const pane = await openPane(h, {});
    await promptsCall(h.slack, pane.thread_ts);
    const prompts = h.slack.assistantThreads.get(`${DM}:${pane.thread_ts}`)?.prompts;
    // The built-in skills and the folder's, in the skills' order, each asked for by name.
    expect(prompts).toEqual([
      {
        title: "bot-guide",
        message:
          "Use the bot-guide skill: How to use this bot: /tools, /skills, /skill, scopes, modes, and what its notices mean.",
      },
      {
        title: "meeting-notes",
        message:
          "Use the meeting-notes skill: Turn a thread or pasted notes into decisions, owned and dated action items, and open questions.",
      },
      {
        title: "release-notes",
        message: "Use the release-notes skill: Drafts release notes from merged pull requests.",
      },
    ]);
    expect(h.slack.assistantThreads.get(`${DM}:${pane.thread_ts}`)?.promptsTitle).toBeUndefined();
  });

  it("answers in the pane's thread, tells the model the channel being viewed, and titles the thread once", async () => {
    const h = await startHarness();
    h.slack.channels.set("C0GENERAL", { name: "general", members: ["U0HUMAN"] });
    h.slack.channels.set("C0RANDOM", { name: "random", members: ["U0HUMAN"] });
    const url = h.events[0] as string;
    const pane = await openPane(h);
    await promptsCall(h.slack, pane.thread_ts);
    // The person moves on to #random with the pane open.
    const moved = assistantThreadEvent("assistant_thread_context_changed", {
      channel: DM,
      threadTs: pane.thread_ts,
      context: { channel_id: "C0RANDOM", team_id: "T0FAKETEAM", enterprise_id: null },
    });
    expect((await sendEvent(url, SLACK_SECRET, moved)).status).toBe(200);

    h.pipe.fake.script({ content: "Here is the summary." }, { content: "And more." });
    const first = messageEvent({
      text: "  Summarize   what this channel decided about the launch, please, with owners\nand dates",
      user: "U0HUMAN",
      channel: DM,
      channelType: "im",
      threadTs: pane.thread_ts,
    });
    expect((await sendEvent(url, SLACK_SECRET, first)).status).toBe(200);
    // Answers stream by edits: wait for the whole text.
    await until(() =>
      visibleIn(h.slack, pane.thread_ts)[0] === "Here is the summary." ? true : undefined,
    );
    expect(visibleIn(h.slack, pane.thread_ts)).toEqual(["Here is the summary."]);
    expect(userTexts(h)[0]).toBe(
      "[Slack assistant pane: the person is looking at channel #random (C0RANDOM) while writing this.]\n\n" +
        // The person's words as they wrote them; only the title collapses the spaces.
        "Summarize   what this channel decided about the launch, please, with owners\nand dates",
    );
    const title = await h.slack.waitForCall("assistant.threads.setTitle");
    expect(title.args).toMatchObject({
      channel_id: DM,
      thread_ts: pane.thread_ts,
      title: "Summarize what this channel decided about the launch,…",
    });
    expect(h.slack.assistantThreads.get(`${DM}:${pane.thread_ts}`)?.title).toBe(
      "Summarize what this channel decided about the launch,…",
    );

    const second = messageEvent({
      text: "thanks",
      user: "U0HUMAN",
      channel: DM,
      channelType: "im",
      threadTs: pane.thread_ts,
    });
    await sendEvent(url, SLACK_SECRET, second);
    await until(() => (visibleIn(h.slack, pane.thread_ts)[1] === "And more." ? true : undefined));
    await settle(300);
    expect(h.slack.callsTo("assistant.threads.setTitle")).toHaveLength(1);
    expect(userTexts(h)[1]).toMatch(
      /^\[Slack assistant pane: .*#random \(C0RANDOM\).*\]\n\nthanks$/,
    );
  });

  it("keeps the system prompt and tools of a pane turn byte for byte those of any DM thread", async () => {
    const h = await startHarness();
    const url = h.events[0] as string;
    const pane = await openPane(h);
    await promptsCall(h.slack, pane.thread_ts);
    h.pipe.fake.script({ content: "one" }, { content: "two" });
    await sendEvent(
      url,
      SLACK_SECRET,
      messageEvent({
        text: "hi",
        user: "U0HUMAN",
        channel: DM,
        channelType: "im",
        threadTs: pane.thread_ts,
      }),
    );
    await h.pipe.requests(1);
    // An ordinary thread of the same DM, which no pane opened.
    const parent = messageEvent({ text: "start", user: "U0HUMAN", channel: DM, channelType: "im" });
    await sendEvent(
      url,
      SLACK_SECRET,
      messageEvent({
        text: "hi",
        user: "U0HUMAN",
        channel: DM,
        channelType: "im",
        threadTs: parent.ts as string,
      }),
    );
    await h.pipe.requests(2);
    const [inPane, plain] = h.pipe.fake.requests.map((r) => r.body);
    expect(JSON.stringify(inPane.tools)).toBe(JSON.stringify(plain.tools));
    expect(inPane.messages[0]).toEqual(plain.messages[0]);
    expect(userTexts(h)[0]).toMatch(/^\[Slack assistant pane: .*C0GENERAL.*\]\n\nhi$/);
    expect(userTexts(h)[1]).toBe("hi");
    expect(h.slack.callsTo("assistant.threads.setTitle")).toHaveLength(1);
  });

  it("works the same over Socket Mode", async () => {
    const h = await startHarness({ mode: "socket" });
    const socket = h.socket as NonNullable<SlackHarness["socket"]>;
    h.slack.channels.set("C0GENERAL", { name: "general", members: ["U0HUMAN"] });
    const pane = h.slack.openAssistantThread("U0HUMAN", DM);
    const ack = await socket.sendEvent(
      assistantThreadEvent("assistant_thread_started", { channel: DM, threadTs: pane.thread_ts }),
    );
    expect(ack.envelopeId).toEqual(expect.any(String));
    await promptsCall(h.slack, pane.thread_ts);
    h.pipe.fake.script({ content: "Hello." });
    await socket.sendEvent(
      messageEvent({
        text: "what is this channel about?",
        user: "U0HUMAN",
        channel: DM,
        channelType: "im",
        threadTs: pane.thread_ts,
      }),
    );
    await until(() => (visibleIn(h.slack, pane.thread_ts)[0] === "Hello." ? true : undefined));
    expect(userTexts(h)[0]).toContain("#general (C0GENERAL)");
    expect((await h.slack.waitForCall("assistant.threads.setTitle")).args.title).toBe(
      "what is this channel about?",
    );
  });

  it("acks assistant events of shapes Slack never sends, and keeps working", async () => {
    const h = await startHarness();
    const url = h.events[0] as string;
    const odd: Record<string, unknown>[] = [
      { type: "assistant_thread_started" },
      { type: "assistant_thread_started", assistant_thread: null },
      { type: "assistant_thread_started", assistant_thread: "D0HUMAN" },
      { type: "assistant_thread_started", assistant_thread: { channel_id: DM } },
      {
        type: "assistant_thread_context_changed",
        assistant_thread: { user_id: 7, channel_id: DM, thread_ts: "1.2", context: [] },
      },
      {
        type: "assistant_thread_started",
        assistant_thread: { user_id: "U0HUMAN", channel_id: DM, thread_ts: "not a ts" },
      },
    ];
    for (const event of odd) {
      expect((await sendEvent(url, SLACK_SECRET, event)).status).toBe(200);
    }
    await settle(200);
    expect(h.slack.callsTo("assistant.threads.setSuggestedPrompts")).toEqual([]);
    // A context of the wrong shape is only no context: the thread still starts.
    const pane = h.slack.openAssistantThread("U0HUMAN", DM);
    const started = assistantThreadEvent("assistant_thread_started", {
      channel: DM,
      threadTs: pane.thread_ts,
    });
    (started.assistant_thread as Record<string, unknown>).context = "C0GENERAL";
    expect((await sendEvent(url, SLACK_SECRET, started)).status).toBe(200);
    const call = await promptsCall(h.slack, pane.thread_ts);
    expect(call.response).toEqual({ ok: true });
  });
});
