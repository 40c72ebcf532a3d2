import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";

const API_KEY = "sk-fake-test";

const weatherTool: OpenAI.ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city.",
    strict: true,
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false,
    },
  },
};

const ask = (content: string): OpenAI.ChatCompletionMessageParam[] => [{ role: "user", content }];

describe("fake OpenAI server", () => {
  let fake: FakeOpenAI;
  let client: OpenAI;

  beforeEach(async () => {
    fake = await startFakeOpenAI({ apiKey: API_KEY });
    client = new OpenAI({ apiKey: API_KEY, baseURL: fake.url, maxRetries: 0 });
  });

  afterEach(async () => {
    await fake.close();
  });

  it("answers a plain completion with a scripted reply and consistent usage", async () => {
    fake.script({ content: "Hello there." });
    const completion = await client.chat.completions.create({
      model: "gpt-test",
      messages: ask("hi"),
    });

    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("gpt-test");
    expect(completion.choices[0]?.message).toMatchObject({
      role: "assistant",
      content: "Hello there.",
    });
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    const usage = completion.usage;
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(0);
  });

  it("echoes the last user message when nothing is scripted", async () => {
    const completion = await client.chat.completions.create({
      model: "gpt-test",
      messages: [...ask("first"), { role: "assistant", content: "ok" }, ...ask("second")],
    });
    expect(completion.choices[0]?.message.content).toBe("echo: second");
  });

  it("consumes scripted replies in order, then falls back to the responder", async () => {
    fake.script({ content: "one" }, async (request) => ({
      content: `two for ${request.body.model}`,
    }));
    fake.setResponder(() => ({ content: "fallback" }));

    const contents: (string | null | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      const completion = await client.chat.completions.create({ model: "m", messages: ask("x") });
      contents.push(completion.choices[0]?.message.content);
    }
    expect(contents).toEqual(["one", "two for m", "fallback"]);
  });

  it("returns tool calls with JSON-string arguments in a non-streamed completion", async () => {
    fake.script({
      toolCalls: [{ id: "call_1", name: "get_weather", arguments: { city: "Paris" } }],
    });
    const completion = await client.chat.completions.create({
      model: "gpt-test",
      messages: ask("weather?"),
      tools: [weatherTool],
    });

    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      {
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
    ]);
  });

  it("streams text and a tool call that the SDK's stream helper reassembles", async () => {
    fake.script({
      content: "Let me check the weather for you.",
      toolCalls: [{ id: "call_w", name: "get_weather", arguments: { city: "Paris" } }],
    });
    const stream = client.chat.completions.stream({
      model: "gpt-test",
      messages: ask("weather in Paris?"),
      tools: [weatherTool],
    });
    const contentDeltas: string[] = [];
    stream.on("content", (delta) => contentDeltas.push(delta));

    const final = await stream.finalChatCompletion();
    const message = final.choices[0]?.message;
    expect(contentDeltas.length).toBeGreaterThan(1);
    expect(message?.content).toBe("Let me check the weather for you.");
    expect(final.choices[0]?.finish_reason).toBe("tool_calls");
    expect(message?.tool_calls?.[0]).toMatchObject({
      id: "call_w",
      type: "function",
      function: {
        name: "get_weather",
        arguments: '{"city":"Paris"}',
        parsed_arguments: { city: "Paris" },
      },
    });
  });

  it("streams a tool call as an opening delta with id and name, then argument pieces", async () => {
    const args = { city: "San Francisco", units: "celsius" };
    fake.script({ toolCalls: [{ name: "get_weather", arguments: args }] });
    const stream = await client.chat.completions.create({
      model: "gpt-test",
      messages: ask("weather?"),
      tools: [weatherTool],
      stream: true,
    });

    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    const [opening, ...pieces] = toolDeltas;
    expect(opening).toMatchObject({
      index: 0,
      type: "function",
      function: { name: "get_weather" },
    });
    expect(opening?.id).toMatch(/^call_/);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.every((piece) => piece.id === undefined && piece.index === 0)).toBe(true);
    const joined = toolDeltas.map((delta) => delta.function?.arguments ?? "").join("");
    expect(JSON.parse(joined)).toEqual(args);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
  });

  it("sends a final usage chunk with cached tokens when include_usage is set", async () => {
    fake.script({
      content: "cached answer",
      usage: { prompt_tokens: 1200, cached_tokens: 1024, completion_tokens: 3 },
    });
    const stream = await client.chat.completions.create({
      model: "gpt-test",
      messages: ask("again"),
      stream: true,
      stream_options: { include_usage: true },
    });

    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({
      prompt_tokens: 1200,
      completion_tokens: 3,
      total_tokens: 1203,
      prompt_tokens_details: { cached_tokens: 1024 },
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");
    expect(text).toBe("cached answer");
  });

  it("surfaces a scripted 429 as RateLimitError with retry-after readable", async () => {
    fake.script({ status: 429, headers: { "retry-after": "7" } });
    const error = await client.chat.completions
      .create({ model: "gpt-test", messages: ask("hi") })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.code).toBe("rate_limit_exceeded");
    expect(rateLimit.headers.get("retry-after")).toBe("7");
  });

  it("rejects a wrong API key with 401 AuthenticationError and still records the request", async () => {
    const intruder = new OpenAI({ apiKey: "sk-wrong", baseURL: fake.url, maxRetries: 0 });
    const error = await intruder.chat.completions
      .create({ model: "gpt-test", messages: ask("hi") })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe("invalid_api_key");
    expect(fake.requests).toHaveLength(1);
    await expect(intruder.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it("records each request with its body, tools array and headers as sent", async () => {
    await client.chat.completions.create({
      model: "gpt-test",
      messages: ask("use tools"),
      tools: [weatherTool],
      tool_choice: "auto",
    });

    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request?.body.tools).toEqual([weatherTool]);
    expect(request?.body.messages).toEqual(ask("use tools"));
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.parse(request?.rawBody ?? "")).toEqual(request?.body);
  });

  it("lists one model", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models).toEqual(["fake-model"]);
  });

  it("lets the client time out on a delayed reply", async () => {
    fake.script({ delayMs: 5_000, content: "too late" });
    const impatient = new OpenAI({
      apiKey: API_KEY,
      baseURL: fake.url,
      maxRetries: 0,
      timeout: 200,
    });
    await expect(
      impatient.chat.completions.create({ model: "gpt-test", messages: ask("hi") }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it("stalls after the scripted number of chunks, holding the stream open", async () => {
    fake.script({ content: "one two three four", stallAfterChunks: 3 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "gpt-test", messages: ask("hi"), stream: true },
      { signal: controller.signal },
    );

    const texts: string[] = [];
    for await (const chunk of stream) {
      texts.push(chunk.choices[0]?.delta.content ?? "");
      if (texts.length === 3) setTimeout(() => controller.abort(), 100);
    }
    expect(texts).toEqual(["", "one ", "two "]);
  });

  it("never sends headers for neverAnswer, until the client gives up", async () => {
    fake.script({ neverAnswer: true });
    const impatient = new OpenAI({
      apiKey: API_KEY,
      baseURL: fake.url,
      maxRetries: 0,
      timeout: 200,
    });
    await expect(
      impatient.chat.completions.create({ model: "gpt-test", messages: ask("hi") }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  it("streams content and arguments in pieces of the scripted size, optionally without a finish reason", async () => {
    fake.script({
      content: "abcdefghij",
      contentChunkChars: 4,
      toolCalls: [{ id: "c", name: "get_weather", arguments: '{"city":"Rome"}' }],
      argumentsChunkChars: 5,
      omitFinishReason: true,
    });
    const stream = await client.chat.completions.create({
      model: "gpt-test",
      messages: ask("hi"),
      stream: true,
    });

    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.map((chunk) => chunk.choices[0]?.delta);
    expect(deltas.map((d) => d?.content).filter(Boolean)).toEqual(["abcd", "efgh", "ij"]);
    const pieces = deltas.flatMap((d) => d?.tool_calls ?? []).map((t) => t.function?.arguments);
    expect(pieces).toEqual(["", '{"cit', 'y":"R', 'ome"}']);
    expect(chunks.every((chunk) => chunk.choices[0]?.finish_reason === null)).toBe(true);
  });

  it("sends a raw body verbatim, with its status and content type", async () => {
    fake.script({ status: 200, contentType: "text/html", body: ["<html>", "</html>"] });
    const response = await fetch(`${fake.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", messages: ask("hi"), stream: true }),
    });

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html");
    expect(await response.text()).toBe("<html></html>");
  });

  it("closes promptly while a delayed reply is pending", async () => {
    fake.script({ delayMs: 60_000, content: "never" });
    const pending = client.chat.completions
      .create({ model: "gpt-test", messages: ask("hi") })
      .catch((caught: unknown) => caught);
    await expect.poll(() => fake.requests.length).toBe(1);

    const started = Date.now();
    await fake.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await pending).toBeInstanceOf(OpenAI.APIConnectionError);
  });
});
