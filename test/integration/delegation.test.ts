import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dayPeriod } from "../../src/core/budget/usage.ts";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { createLogger } from "../../src/observability/logger.ts";
import { createOpenAIProvider } from "../../src/providers/openai.ts";
import { type Bot, createBot } from "../../src/runtime/create-bot.ts";
import { createStore } from "../../src/store/index.ts";
import {
  type FakeOpenAI,
  type RecordedRequest,
  startFakeOpenAI,
} from "../../src/testing/fakes/openai-server.ts";
import { until } from "../support/channels.ts";
import { MemoryChannel } from "../support/memory-channel.ts";
import { connectRedis, deleteKeysUnder, redisEnv, uniquePrefix } from "../support/redis.ts";
import { parentOf, startTestTracing } from "../support/tracing.ts";

const LEAD = "You are the lead of the desk.";
const RESEARCHER = "You are the researcher.";

let bot: Bot | undefined;
let fake: FakeOpenAI | undefined;
let dir: string | undefined;
let prefix = "";

afterEach(async () => {
  await bot?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  const redis = connectRedis();
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

/** Tool names of a request, in order. */
function toolsOf(request: RecordedRequest): string[] {
  return (request.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
}

async function startBot(config: string, responder: (r: RecordedRequest) => object) {
  dir = mkdtempSync(join(tmpdir(), "sy-delegation-"));
  writeFileSync(join(dir, "switchyard.yaml"), config);
  fake = await startFakeOpenAI({ responder });
  prefix = uniquePrefix("delegation");
  const channel = new MemoryChannel();
  bot = createBot({
    config: join(dir, "switchyard.yaml"),
    channels: [channel],
    provider: createOpenAIProvider({ apiKey: "test", baseURL: fake.url, model: "fake-model" }),
    env: { ...redisEnv() },
    prefix,
    queue: { debounceMs: 0 },
    logger: createLogger({ level: "silent" }),
    processGuard: false,
  });
  await bot.start();
  return channel;
}

const CONFIG = [
  "models:",
  "  list:",
  "    - name: fake-model",
  "    - name: research-model",
  "agents:",
  "  - id: lead",
  `    persona: ${LEAD}`,
  "    delegates: [researcher]",
  "  - id: researcher",
  `    persona: ${RESEARCHER}`,
  "    model: research-model",
  // It names delegates too, but the default depth (1) leaves a child none to ask.
  "    delegates: [lead]",
  "bindings:",
  '  - { agent: lead, channel: "memory:desk" }',
  "",
].join("\n");

describe("ask_agent, through createBot", () => {
  it("runs the child with its own persona, model and tools, posts only the lead's answer, and counts the child's tokens into the turn", async () => {
    const responder = (request: RecordedRequest) => {
      const system = String(request.body.messages[0]?.content ?? "");
      const last = request.body.messages.at(-1);
      if (system.startsWith(RESEARCHER)) {
        return {
          content: "Tea is a drink.",
          usage: { prompt_tokens: 1000, completion_tokens: 100 },
        };
      }
      if (last.role === "user") {
        return {
          toolCalls: [
            {
              id: "call_ask",
              name: "ask_agent",
              arguments: { agent: "researcher", task: "What is tea?" },
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 1 },
        };
      }
      return { content: "Tea: a drink.", usage: { prompt_tokens: 10, completion_tokens: 1 } };
    };
    const channel = await startBot(CONFIG, responder);
    await channel.say("desk", "what is tea?");
    await until(() => (channel.posts.length > 0 ? true : undefined));
    const requests = fake?.requests ?? [];
    expect(requests).toHaveLength(3);
    const [first, child, last] = requests as [RecordedRequest, RecordedRequest, RecordedRequest];

    // The lead is offered ask_agent and told whom it may ask.
    expect(toolsOf(first)).toContain("ask_agent");
    expect(first.body.messages[0].content).toContain("## Other agents");
    expect(first.body.messages[0].content).toContain("- researcher");
    // The child: its own persona, model and cache key; the task alone; no further delegation.
    expect(String(child.body.messages[0].content).startsWith(RESEARCHER)).toBe(true);
    expect(child.body.messages[0].content).toContain("## Delegated task");
    expect(child.body.messages[0].content).not.toContain("## Other agents");
    expect(child.body.model).toBe("research-model");
    expect(child.body.prompt_cache_key).toMatch(/#agent:researcher$/);
    expect(child.body.messages.slice(1)).toEqual([{ role: "user", content: "What is tea?" }]);
    expect(toolsOf(child)).not.toContain("ask_agent");
    // The child's answer is the call's result.
    expect(last.body.messages.at(-1)).toMatchObject({
      role: "tool",
      tool_call_id: "call_ask",
      content: "researcher answered:\nTea is a drink.",
    });
    // Only the lead answers.
    expect(channel.posts.map((p) => p.text)).toEqual(["Tea: a drink."]);

    const redis = connectRedis();
    try {
      const store = createStore(redis, { prefix });
      const address: ConversationAddress = {
        platform: "memory",
        workspace: "team",
        channel: "desk",
        conversation: "desk",
      };
      const read = () => store.usage.read({ kind: "conversation", address }, dayPeriod(Date.now()));
      // The turn's usage is counted as its end trims the inbox, just after the answer is posted.
      const deadline = Date.now() + 10_000;
      while ((await read()).turns === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await read()).toMatchObject({ prompt: 1020, completion: 102, turns: 1 });
    } finally {
      redis.disconnect();
    }
  });

  it("traces the child inside its ask_agent call's span, its model request below it", async () => {
    const tracing = startTestTracing();
    try {
      const channel = await startBot(CONFIG, (request) => {
        const system = String(request.body.messages[0]?.content ?? "");
        if (system.startsWith(RESEARCHER)) return { content: "Tea is a drink." };
        if (request.body.messages.at(-1).role === "user") {
          return {
            toolCalls: [
              { id: "c1", name: "ask_agent", arguments: { agent: "researcher", task: "Tea?" } },
            ],
          };
        }
        return { content: "Tea: a drink." };
      });
      await channel.say("desk", "what is tea?");
      await until(() => (channel.posts.length > 0 ? true : undefined));
      const spans = await until(() => {
        const all = tracing.spans();
        return all.some((s) => s.name === "switchyard.turn") ? all : undefined;
      });
      const delegated = spans.filter((s) => s.name === "switchyard.agent.delegate");
      expect(delegated).toHaveLength(1);
      const child = delegated[0] as (typeof spans)[number];
      expect(child.attributes["switchyard.agent"]).toBe("researcher");
      const call = spans.find((s) => s.spanContext().spanId === parentOf(child));
      expect(call?.name).toBe("switchyard.tool.call");
      expect(call?.attributes["gen_ai.tool.name"]).toBe("ask_agent");
      const models = spans.filter((s) => s.name === "switchyard.model.request");
      expect(models).toHaveLength(3);
      expect(models.filter((s) => parentOf(s) === child.spanContext().spanId)).toHaveLength(1);
    } finally {
      await tracing.stop();
    }
  });

  it("lets a child ask further when the depth allows, each level answering its caller", async () => {
    const config = [
      "agents:",
      "  - id: lead",
      `    persona: ${LEAD}`,
      "    delegates: [researcher]",
      "    delegation: { depth: 2 }",
      "  - id: researcher",
      `    persona: ${RESEARCHER}`,
      "    delegates: [librarian]",
      "  - id: librarian",
      "    persona: You are the librarian.",
      "    delegates: [lead]",
      "bindings:",
      '  - { agent: lead, channel: "memory:desk" }',
      "",
    ].join("\n");
    const ask = (id: string, agent: string) => ({
      toolCalls: [{ id, name: "ask_agent", arguments: { agent, task: "Tea?" } }],
    });
    const channel = await startBot(config, (request) => {
      const system = String(request.body.messages[0]?.content ?? "");
      const last = request.body.messages.at(-1);
      if (system.startsWith("You are the librarian.")) return { content: "Camellia sinensis." };
      if (system.startsWith(RESEARCHER)) {
        return last.role === "user" ? ask("call_lib", "librarian") : { content: last.content };
      }
      return last.role === "user" ? ask("call_res", "researcher") : { content: "Done." };
    });
    await channel.say("desk", "what is tea?");
    await until(() => (channel.posts.length > 0 ? true : undefined));
    const requests = fake?.requests ?? [];
    const systems = requests.map((r) => String(r.body.messages[0].content).split("\n")[0]);
    expect(systems).toEqual([LEAD, RESEARCHER, "You are the librarian.", RESEARCHER, LEAD]);
    // The researcher (one level left) may ask; the librarian (none left) may not.
    expect(toolsOf(requests[1] as RecordedRequest)).toContain("ask_agent");
    expect(toolsOf(requests[2] as RecordedRequest)).not.toContain("ask_agent");
    expect((requests[4] as RecordedRequest).body.messages.at(-1).content).toBe(
      "researcher answered:\nlibrarian answered:\nCamellia sinensis.",
    );
    expect(channel.posts.map((p) => p.text)).toEqual(["Done."]);
  });

  it("is offered nowhere when no agent names delegates:", async () => {
    const channel = await startBot(
      [
        "agents:",
        "  - id: lead",
        `    persona: ${LEAD}`,
        "bindings:",
        '  - { agent: lead, channel: "memory:desk" }',
        "",
      ].join("\n"),
      () => ({ content: "hi" }),
    );
    await channel.say("desk", "hi");
    await channel.say("general", "hi");
    await until(() => (channel.posts.length === 2 ? true : undefined));
    for (const request of fake?.requests ?? []) expect(toolsOf(request)).not.toContain("ask_agent");
  });

  it("answers an agent the caller may not ask with the ones it may", async () => {
    let asked = 0;
    const channel = await startBot(CONFIG, (request) => {
      const last = request.body.messages.at(-1);
      if (last.role === "user") {
        asked++;
        return {
          toolCalls: [
            { id: "call_x", name: "ask_agent", arguments: { agent: "default", task: "hi" } },
          ],
        };
      }
      return { content: `told: ${last.content}` };
    });
    await channel.say("desk", "hi");
    await until(() => (channel.posts.length > 0 ? true : undefined));
    expect(asked).toBe(1);
    expect(channel.posts.map((p) => p.text)).toEqual([
      'told: Agent lead may not ask "default". Ask one of: researcher.',
    ]);
  });

  it("lets the default agent ask the agents the top-level agent: section names", async () => {
    const config = [
      "agent:",
      `  persona: ${LEAD}`,
      "  delegates: [researcher]",
      "agents:",
      "  - id: researcher",
      `    persona: ${RESEARCHER}`,
      "",
    ].join("\n");
    const responder = (request: RecordedRequest) => {
      const system = String(request.body.messages[0]?.content ?? "");
      if (system.startsWith(RESEARCHER)) return { content: "Tea is a drink." };
      if (request.body.messages.at(-1).role === "user") {
        return {
          toolCalls: [
            {
              id: "call_ask",
              name: "ask_agent",
              arguments: { agent: "researcher", task: "What is tea?" },
            },
          ],
        };
      }
      return { content: `told: ${request.body.messages.at(-1).content}` };
    };
    // No binding: the conversation's agent is default.
    const channel = await startBot(config, responder);
    await channel.say("anywhere", "what is tea?");
    await until(() => (channel.posts.length > 0 ? true : undefined));
    const [first, child] = (fake?.requests ?? []) as [RecordedRequest, RecordedRequest];
    expect(String(first.body.messages[0].content).startsWith(LEAD)).toBe(true);
    expect(toolsOf(first)).toContain("ask_agent");
    expect(first.body.messages[0].content).toContain("- researcher");
    expect(String(child.body.messages[0].content).startsWith(RESEARCHER)).toBe(true);
    expect(channel.posts.map((p) => p.text)).toEqual([
      "told: researcher answered:\nTea is a drink.",
    ]);
  });
});
