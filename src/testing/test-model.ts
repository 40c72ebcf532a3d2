/**
 * The model a test bot talks to: the fake OpenAI-compatible server on a free
 * port, answering by a {@link ModelScript}, with what the bot sent it read
 * back as typed requests, tool calls and the tool contract.
 *
 * @example
 * const model = await startTestModel({ rules: [{ when: "hi", reply: "Hello!" }] });
 * const bot = createBot({ provider: model.provider(), ... });
 * // ... after a turn:
 * model.requests()[0]?.tools; // ["current_time", "weather", ...]
 * await model.close();
 */
import type { Provider } from "../core/agent/provider.ts";
import { createOpenAIProvider } from "../providers/openai.ts";
import { FAKE_MODEL_ID, type FakeOpenAI, startFakeOpenAI } from "./fakes/openai-server.ts";
import {
  type ModelRequest,
  type ModelScript,
  readModelRequest,
  scriptedModel,
} from "./scripted-model.ts";

/** A tool call the model made, with what the bot answered it (the tool's result or a tombstone). */
export interface RecordedToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as the model sent them, parsed (the raw string when they were not JSON). */
  readonly args: unknown;
  /** The bot's answer to the call, once a later request carried it. */
  readonly result: string | undefined;
}

/** The tools the model was offered and the system prompt, as the latest request carried them. */
export interface SeenContract {
  readonly tools: readonly string[];
  readonly system: string;
}

export interface TestModel {
  /** The base URL for an OpenAI-compatible client: `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  /** The model name the provider asks for. */
  readonly model: string;
  /** Every chat request the bot sent, in order. */
  requests(): ModelRequest[];
  /** Every tool call the model made, in order, each with the bot's answer once known. */
  toolCalls(): RecordedToolCall[];
  /** What the latest request offered; empty before the first one. */
  contract(): SeenContract;
  /** A provider for `createBot({ provider })` that talks to this model, without retries' long waits. */
  provider(): Provider;
  /** Answers from now on by this script instead. */
  script(script: ModelScript): void;
  /** The fake server itself, for what the helpers do not cover (raw replies, transcriptions). */
  readonly fake: FakeOpenAI;
  close(): Promise<void>;
}

export async function startTestModel(script: ModelScript = {}): Promise<TestModel> {
  const fake = await startFakeOpenAI({ responder: scriptedModel(script) });
  const requests = () => fake.requests.map(readModelRequest);
  return {
    url: fake.url,
    model: FAKE_MODEL_ID,
    fake,
    requests,
    toolCalls: () => toolCallsIn(fake),
    contract: () => {
      const last = requests().at(-1);
      return { tools: last?.tools ?? [], system: last?.system ?? "" };
    },
    provider: () =>
      createOpenAIProvider({
        baseURL: fake.url,
        apiKey: "test",
        model: FAKE_MODEL_ID,
        maxRetries: 1,
        // A stalled step is found in seconds, not the minute a real model is given.
        // A forwarded request waits for the real model's whole reply before the first byte.
        limits: script.forward
          ? { firstByteMs: 120_000, idleMs: 30_000, callMs: 180_000 }
          : { firstByteMs: 5_000, idleMs: 2_000, callMs: 15_000 },
      }),
    script: (next) => fake.setResponder(scriptedModel(next)),
    close: () => fake.close(),
  };
}

interface WireMessage {
  role?: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/** The tool calls in the requests' histories, each once, in the order the model made them. */
function toolCallsIn(fake: FakeOpenAI): RecordedToolCall[] {
  const calls = new Map<string, RecordedToolCall>();
  for (const request of fake.requests) {
    const messages: WireMessage[] = request.body?.messages ?? [];
    for (const message of messages) {
      for (const call of message.tool_calls ?? []) {
        if (!calls.has(call.id)) {
          calls.set(call.id, {
            id: call.id,
            name: call.function.name,
            args: parseArgs(call.function.arguments),
            result: undefined,
          });
        }
      }
      const answered = message.role === "tool" && calls.get(message.tool_call_id ?? "");
      if (answered && answered.result === undefined) {
        calls.set(answered.id, { ...answered, result: textOf(message.content) });
      }
    }
  }
  return [...calls.values()];
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { text?: string }) => part.text ?? "").join("");
}
