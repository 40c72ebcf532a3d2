import { afterEach, describe, expect, it } from "vitest";
import type { ConversationAddress } from "../../src/core/conversation.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { askAgentTool } from "../../src/tools/ask-agent.ts";
import { clickBy, parkedWait } from "../support/approvals.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";
import { uniquePrefix } from "../support/redis.ts";

const address: ConversationAddress = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  conversation: "main",
};

const CONFIG = [
  "agents:",
  "  - id: lead",
  "    persona: You are the lead.",
  "    delegates: [researcher]",
  "    tools: { ask_agent: ask }",
  "  - id: researcher",
  "    persona: You are the researcher.",
  "bindings:",
  '  - { agent: lead, channel: "console:terminal" }',
  "",
].join("\n");

let pipe: Pipeline | undefined;
afterEach(async () => {
  await pipe?.close();
  pipe = undefined;
});

describe("ask_agent under ask", () => {
  it("waits for a person's approval before the child runs, then the lead answers once", async () => {
    const config = parseConfig(CONFIG, "switchyard.yaml");
    const p = await startPipeline({
      prefix: uniquePrefix("ask-agent"),
      tools: [askAgentTool()],
      config: () => config,
      approvals: { policy: () => ({ approvers: ["requester", "admins"], timeoutMs: 60_000 }) },
    });
    pipe = p;
    p.fake.script(
      {
        toolCalls: [
          { id: "call_ask", name: "ask_agent", arguments: { agent: "researcher", task: "Tea?" } },
        ],
      },
      { content: "Tea is a drink." },
      { content: "Tea: a drink." },
    );
    await p.app.queue.enqueue(p.message("what is tea?"));
    const wait = await parkedWait(p.app.redis, p.app.store, address);
    const [request] = await p.posts(1);
    expect(request?.text).toContain("Approval needed: the bot wants to run ask_agent.");
    // Parked: the child has not run.
    expect(p.fake.requests).toHaveLength(1);

    await p.app.approvals.decide(clickBy(wait.id, "alice"));
    const posts = await p.posts(2);
    expect(posts.map((e) => e.text)[1]).toBe("Tea: a drink.");
    const child = p.fake.requests[1]?.body.messages ?? [];
    expect(String(child[0]?.content).startsWith("You are the researcher.")).toBe(true);
    expect(p.fake.requests[2]?.body.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "researcher answered:\nTea is a drink.",
    });
  });
});
