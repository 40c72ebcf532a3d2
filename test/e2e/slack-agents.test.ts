import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/platforms/config.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  appMentionEvent,
  messageEvent,
  sendEvent,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import {
  SLACK_SECRET,
  type SlackHarness,
  useSlackHarness,
  visibleIn,
} from "../support/slack-harness.ts";

const start = useSlackHarness();

/** Two agents side by side in one workspace, each bound to its own channel. */
const CONFIG = `
access: { dm: open, groups: open }
permissions: { admins: [slack:U0ADMIN] }
models:
  list:
    - name: fake-model
    - name: support-model
    - name: eng-model
toolsets:
  desk: [lookup]
  build: [lookup, calendar_create]
agents:
  - id: support
    name: Support desk
    persona: You are the support desk. Be careful and kind.
    model: support-model
    toolset: desk
    tools: { lookup: ask }
  - id: engineering
    persona: You are the engineering helper. Be terse.
    model: eng-model
    toolset: build
    mode: full
bindings:
  - { agent: support, channel: "slack:C0HELP" }
  - { agent: engineering, channel: "slack:C0ENG" }
`;

const config = parseConfig(CONFIG, "agents.yaml");

interface SentRequest {
  readonly model: string;
  readonly system: string;
  readonly tools: readonly string[];
  readonly cacheKey: string;
  readonly said: readonly string[];
}

/** What the fake model was asked, request by request: the parts an agent decides. */
function requests(h: SlackHarness): SentRequest[] {
  return h.pipe.fake.requests.map(({ body }) => ({
    model: body.model,
    system: body.messages[0].content,
    tools: (body.tools ?? []).map((t: { function: { name: string } }) => t.function.name),
    cacheKey: body.prompt_cache_key,
    said: body.messages
      .filter((m: { role: string }) => m.role !== "system")
      .map((m: { role: string; content: string }) => `${m.role}: ${m.content}`),
  }));
}

/** Mentions the bot in a channel; returns the thread its answer goes to, once it is there. */
async function mention(h: SlackHarness, channel: string, text: string): Promise<string> {
  const event = appMentionEvent({ text: `<@${FAKE_SLACK.botUserId}> ${text}`, channel });
  await sendEvent(h.events[0] as string, SLACK_SECRET, event);
  const thread = event.ts as string;
  await until(() => (visibleIn(h.slack, thread).length >= 1 ? true : undefined));
  return thread;
}

/** A slash command's private answer. */
async function slash(
  h: SlackHarness,
  command: string,
  text: string,
  channel: string,
  user = "U0ADMIN",
) {
  // As the manifest registers them: /tools bare, the shared commands as /switchyard <command>.
  const bare = command === "/tools";
  const answer = await sendSlashCommand(h.events[0] as string, SLACK_SECRET, {
    command: bare ? command : "/switchyard",
    text: bare ? text : `${command.slice(1)} ${text}`.trim(),
    userId: user,
    channelId: channel,
  });
  return JSON.stringify(answer.body);
}

describe("two agents in one Slack workspace", () => {
  it("answers each channel with its own agent's persona, tools and model, and /tools shows each its own list", async () => {
    const h = await start({ config: () => config });
    h.pipe.fake.script({ content: "Happy to help." }, { content: "Looking." });

    await mention(h, "C0HELP", "my order is late");
    await mention(h, "C0ENG", "the build is red");
    await h.pipe.requests(2);
    const [help, eng] = requests(h);
    expect(help).toMatchObject({ model: "support-model", tools: ["lookup"] });
    expect(help?.system).toContain("You are the support desk. Be careful and kind.");
    expect(help?.system).not.toContain("engineering helper");
    expect(eng).toMatchObject({ model: "eng-model", tools: ["calendar_create", "lookup"] });
    expect(eng?.system).toContain("You are the engineering helper. Be terse.");
    // Each agent's requests go to a prompt cache of its own.
    expect(help?.cacheKey).toContain("#agent:support");
    expect(eng?.cacheKey).toContain("#agent:engineering");

    const helpTools = await slash(h, "/tools", "", "C0HELP");
    const engTools = await slash(h, "/tools", "", "C0ENG");
    expect(helpTools).toMatch(/1 of 2 tools available/);
    expect(helpTools).toContain("`calendar_create` · disabled by toolset desk");
    expect(engTools).toMatch(/2 of 2 tools available/);
    expect(engTools).toContain("Mode *full*");
    // The support agent's base intent makes lookup ask first; /tools why names the agent.
    expect(await slash(h, "/tools", "why lookup", "C0HELP")).toContain("agent support's (lookup)");

    expect(await slash(h, "/agent", "", "C0HELP", "U0HUMAN")).toContain(
      "Support desk (support) answers here, bound by the config's bindings: for this channel.",
    );
  });

  it("switches one channel with /agent, and its next turn follows with the conversation's history", async () => {
    const h = await start({ config: () => config });
    h.pipe.fake.script({ content: "Happy to help." }, { content: "On it." });
    const thread = await mention(h, "C0HELP", "my order is late");
    await h.pipe.requests(1);

    // A member may not rebind a channel; an admin may.
    expect(await slash(h, "/agent", "engineering channel", "C0HELP", "U0HUMAN")).toContain(
      "can change the channel scope",
    );
    expect(await slash(h, "/agent", "engineering channel", "C0HELP")).toContain(
      "engineering answers in this channel from my next turn.",
    );

    await sendEvent(
      h.events[0] as string,
      SLACK_SECRET,
      messageEvent({ text: "and the build?", channel: "C0HELP", threadTs: thread }),
    );
    await h.pipe.requests(2);
    await until(() => (visibleIn(h.slack, thread).length >= 2 ? true : undefined));
    const [before, after] = requests(h);
    expect(before).toMatchObject({ model: "support-model", tools: ["lookup"] });
    expect(after).toMatchObject({ model: "eng-model", tools: ["calendar_create", "lookup"] });
    expect(after?.system).toContain("You are the engineering helper.");
    expect(after?.system).not.toContain("support desk");
    // The history is the conversation's: the support agent's answer is still there.
    expect(after?.said.slice(0, 2)).toEqual([
      expect.stringContaining("my order is late"),
      "assistant: Happy to help.",
    ]);
    expect(await slash(h, "/agent", "", "C0HELP", "U0HUMAN")).toContain(
      "engineering answers here, bound by /agent for this channel.",
    );
    // The other channel keeps its own binding.
    expect(await slash(h, "/agent", "", "C0ENG", "U0HUMAN")).toContain(
      "engineering answers here, bound by the config's bindings: for this channel.",
    );
  });
});
