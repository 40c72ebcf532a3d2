import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChatMessage, ProviderBlock, ToolCall } from "../../src/core/agent/messages.ts";
import type { ProviderRequest } from "../../src/core/agent/provider.ts";
import { type AttachmentContent, userContent } from "../../src/core/attachments/content.ts";
import {
  type AnthropicMessage,
  buildMessagesRequest,
  MAX_BREAKPOINTS,
} from "../../src/providers/anthropic/translate.ts";
import { buildChatRequest } from "../../src/providers/openai-request.ts";
import { checkRequest } from "../../src/testing/fakes/anthropic.ts";

const settings = { model: "claude-test", maxTokens: 1024, cacheTtl: "5m" as const };

const fnTool = (name: string, description = `Does ${name}.`) => ({
  type: "function",
  function: {
    description,
    name,
    parameters: { properties: { q: { type: "string" } }, type: "object" },
  },
});

const build = (request: ProviderRequest) =>
  buildMessagesRequest(request, settings, JSON.parse(request.tools) as unknown[]);

const toolName = fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/);
const text = fc.string({ minLength: 1, maxLength: 30 });
const args = fc.oneof(
  fc
    .dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.oneof(fc.string(), fc.integer()))
    .map((o) => JSON.stringify(o)),
  fc.constant("{not json"),
);

/** A history the loop could have stored: turns of a person's message, tool steps with every call answered, an answer. */
const history = fc
  .array(
    fc.record({
      user: fc.oneof(
        text,
        fc.tuple(text, fc.base64String({ minLength: 4, maxLength: 12 })).map(([t, data]) => [
          { type: "text" as const, text: t },
          { type: "image_url" as const, image_url: { url: `data:image/png;base64,${data}` } },
        ]),
      ),
      steps: fc.array(
        fc.record({
          said: fc.option(text, { nil: null }),
          thinking: fc.option(fc.tuple(text, fc.boolean()), { nil: undefined }),
          calls: fc.array(fc.tuple(toolName, args, text), { minLength: 1, maxLength: 3 }),
        }),
        { maxLength: 2 },
      ),
      answer: fc.option(fc.oneof(text, fc.constant("")), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 4 },
  )
  .map((turns) => {
    let id = 0;
    const messages: ChatMessage[] = [];
    for (const turn of turns) {
      messages.push({ role: "user", content: turn.user });
      for (const step of turn.steps) {
        const calls: ToolCall[] = step.calls.map(([name, a]) => ({
          id: `toolu_${id++}`,
          type: "function",
          function: { name, arguments: a },
        }));
        messages.push({
          role: "assistant",
          content: step.said,
          tool_calls: calls,
          ...(step.thinking ? { reasoning: reasoningOf(...step.thinking) } : {}),
        });
        for (const [i, call] of calls.entries()) {
          messages.push({ role: "tool", tool_call_id: call.id, content: step.calls[i]?.[2] ?? "" });
        }
      }
      if (turn.answer !== undefined) messages.push({ role: "assistant", content: turn.answer });
    }
    // A request ends with what the model answers next: a person's message or tool results.
    while (messages.at(-1)?.role === "assistant") messages.pop();
    return messages;
  });

/** Signed thinking as the stream reader stores it, sometimes followed by a redacted block. */
function reasoningOf(thought: string, redacted: boolean): ProviderBlock[] {
  return [
    { signature: `sig:${thought.length}`, thinking: thought, type: "thinking" },
    ...(redacted ? [{ data: `opaque:${thought}`, type: "redacted_thinking" }] : []),
  ];
}

const tools = fc
  .uniqueArray(toolName, { maxLength: 6 })
  .chain((names) =>
    fc.record({
      names: fc.constant(names),
      search: fc.boolean(),
      mounted: fc.uniqueArray(toolName, { maxLength: 2 }),
    }),
  )
  .map(({ names, search, mounted }) => {
    const list = names.filter((n) => n !== "tool_search").map((n) => fnTool(n));
    if (search)
      list.push(
        fnTool("tool_search"),
        ...mounted.filter((m) => !names.includes(m) && m !== "tool_search").map((m) => fnTool(m)),
      );
    return JSON.stringify(list);
  });

/** History as compaction may leave it: some messages dropped from the head, whatever they were. */
const trimmed = fc
  .tuple(history, fc.nat({ max: 6 }))
  .map(([messages, drop]) => messages.slice(Math.min(drop, messages.length - 1)));

const request = fc
  .record({ system: fc.string({ maxLength: 40 }), tools, messages: trimmed })
  .map((r): ProviderRequest => ({ ...r, cacheKey: "c" }));

describe("translating a turn to the Messages API", () => {
  it("gives the same bytes for the same contract and history (rule 2)", () => {
    fc.assert(
      fc.property(request, (r) => {
        const copy = JSON.parse(JSON.stringify(r)) as ProviderRequest;
        expect(JSON.stringify(build(r).body)).toBe(JSON.stringify(build(copy).body));
      }),
    );
  });

  it("always makes a request the API takes, with every tool call paired with its result and at most four breakpoints", () => {
    fc.assert(
      fc.property(request, (r) => {
        const { body, breakpoints } = build(r);
        expect(checkRequest(body as unknown as Record<string, unknown>)).toBeUndefined();
        const marks =
          breakpoints.tools.length + (breakpoints.system ? 1 : 0) + breakpoints.messages.length;
        expect(marks).toBeLessThanOrEqual(MAX_BREAKPOINTS);
        // Every call the history holds comes back as a tool_use, with its result right after it.
        const calls = r.messages.flatMap((m) =>
          m.role === "assistant" ? (m.tool_calls ?? []) : [],
        );
        const uses = body.messages.flatMap((m, i) =>
          m.content.flatMap((b) =>
            b.type === "tool_use" ? [{ id: b.id, name: b.name, at: i }] : [],
          ),
        );
        expect(uses.map((u) => [u.id, u.name])).toEqual(calls.map((c) => [c.id, c.function.name]));
        for (const use of uses) {
          const next = body.messages[use.at + 1] as AnthropicMessage;
          expect(
            next.content.some((b) => b.type === "tool_result" && b.tool_use_id === use.id),
          ).toBe(true);
        }
      }),
    );
  });

  it("sends a step's thinking blocks first in its assistant turn, unchanged and unmarked; the OpenAI-compatible request leaves them out", () => {
    fc.assert(
      fc.property(request, (r) => {
        const { messages } = build(r).body;
        for (const source of r.messages) {
          if (source.role !== "assistant" || !source.reasoning) continue;
          const first = source.tool_calls?.[0]?.id;
          const turn = messages.find((m) =>
            m.content.some((b) => b.type === "tool_use" && b.id === first),
          );
          expect(turn?.role).toBe("assistant");
          expect(turn?.content.slice(0, source.reasoning.length)).toEqual(source.reasoning);
        }
        const reasoning = messages.flatMap((m) =>
          m.content.filter((b) => b.type === "thinking" || b.type === "redacted_thinking"),
        );
        expect(reasoning.every((b) => !("cache_control" in b))).toBe(true);
        expect(reasoning).toHaveLength(
          r.messages.reduce(
            (n, m) => n + (m.role === "assistant" ? (m.reasoning?.length ?? 0) : 0),
            0,
          ),
        );
        const chat = buildChatRequest(r, { model: "m" }, []);
        expect(JSON.stringify(chat.messages)).not.toContain('"reasoning"');
      }),
    );
  });

  it.each([
    ["thinking only", reasoningOf("Check the weather first.", false)],
    ["thinking and a redacted block", reasoningOf("Check the weather first.", true)],
  ])("replays a tool step with %s ahead of its text and calls", (_label, reasoning) => {
    const messages: ChatMessage[] = [
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: "Let me look.",
        reasoning,
        tool_calls: [
          {
            id: "toolu_1",
            type: "function",
            function: { name: "w", arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "toolu_1", content: "Sunny." },
    ];
    const { body } = build({ system: "s", tools: "[]", cacheKey: "c", messages });
    expect(body.messages[1]?.content.map((b) => b.type)).toEqual([
      ...reasoning.map((b) => b.type),
      "text",
      "tool_use",
    ]);
    expect(JSON.stringify(body.messages[1]?.content.slice(0, reasoning.length))).toBe(
      JSON.stringify(reasoning),
    );
    expect(checkRequest(body as never)).toBeUndefined();
  });

  it("puts the breakpoints on the last resident tool, the appended tools, the system prompt and the previous turn", () => {
    const r: ProviderRequest = {
      system: "You are a bot.",
      tools: JSON.stringify([
        fnTool("alpha"),
        fnTool("beta"),
        fnTool("tool_search"),
        fnTool("mounted_one"),
      ]),
      cacheKey: "c",
      messages: [
        { role: "user", content: "one" },
        { role: "assistant", content: "answer one" },
        { role: "user", content: "two" },
      ],
    };
    const { body, breakpoints } = build(r);
    expect(breakpoints).toEqual({ tools: [2, 3], system: true, messages: [[1, 0]] });
    expect(body.tools?.map((t) => t.cache_control !== undefined)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(body.messages[1]?.content[0]).toEqual({
      type: "text",
      text: "answer one",
      cache_control: { type: "ephemeral" },
    });

    // Nothing appended: the fourth goes on the request's last block, for the next step of this turn.
    const plain = build({ ...r, tools: JSON.stringify([fnTool("alpha"), fnTool("beta")]) });
    expect(plain.breakpoints).toEqual({
      tools: [1],
      system: true,
      messages: [
        [1, 0],
        [2, 0],
      ],
    });
  });

  it("replays history trimmed at its head: a user turn before the bot's first words, a result whose call is gone as text", () => {
    const { body } = build({
      system: "s",
      tools: "[]",
      cacheKey: "c",
      messages: [
        { role: "assistant", content: "Earlier answer." },
        { role: "tool", tool_call_id: "call_gone", content: "42" },
        { role: "user", content: "next" },
      ],
    });
    expect(checkRequest(body as unknown as Record<string, unknown>)).toBeUndefined();
    expect(body.messages[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "(Earlier messages of this conversation are not shown.)" }],
    });
    expect(body.messages[2]?.content[0]).toMatchObject({
      type: "text",
      text: "[result of an earlier tool call call_gone]\n42",
    });
  });

  it("translates the tools to Anthropic's shape and sets the ttl when it is an hour", () => {
    const { body } = buildMessagesRequest(
      {
        system: "",
        tools: JSON.stringify([fnTool("alpha")]),
        messages: [{ role: "user", content: "hi" }],
        cacheKey: "c",
      },
      { ...settings, cacheTtl: "1h" },
      [fnTool("alpha")],
    );
    expect(body.system).toBeUndefined();
    expect(body.tools).toEqual([
      {
        name: "alpha",
        description: "Does alpha.",
        input_schema: { properties: { q: { type: "string" } }, type: "object" },
        cache_control: { type: "ephemeral", ttl: "1h" },
      },
    ]);
  });

  it("sends a document as its extracted text, the words the OpenAI-compatible request carries, never a document block", () => {
    const report: AttachmentContent = {
      ref: "F1",
      name: "report.pdf",
      kind: "document",
      type: "application/pdf",
      bytes: 48_000,
      outcome: "text",
      text: "--- page 1 ---\nRevenue rose 12% in Q3.",
    };
    const chart: AttachmentContent = {
      ref: "F2",
      name: "chart.png",
      kind: "image",
      type: "image/png",
      bytes: 9_000,
      outcome: "image",
      image: { url: "data:image/png;base64,iVBORw0KGgo=", width: 10, height: 10 },
    };
    for (const sent of [[report], [report, chart]]) {
      const request: ProviderRequest = {
        system: "s",
        tools: "[]",
        messages: [{ role: "user", content: userContent("Summarise this.", sent) }],
        cacheKey: "c",
      };
      const claude = JSON.stringify(build(request).body.messages);
      const chat = JSON.stringify(buildChatRequest(request, { model: "m" }, []).messages);
      expect(claude).not.toMatch(/"type":"document"/);
      for (const wire of [claude, chat]) expect(wire).toContain("Revenue rose 12% in Q3.");
    }
  });
});
