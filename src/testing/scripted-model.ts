/**
 * A scripted model: what the fake OpenAI-compatible server answers, written
 * as rules ("when the person says X, call tool Y, then answer Z") or as a
 * plain sequence. The bot talks to it through the real `openai` SDK, so a
 * test sees exactly what the bot would do with a real model's replies.
 *
 * @example
 * const model = scriptedModel({
 *   rules: [
 *     { when: /weather in (\w+)/i, reply: [{ tool: "weather", args: { city: "Paris" } }, (r) => `Report: ${r.lastToolResult}`] },
 *     { when: "hello", reply: "Hi there!" },
 *   ],
 * });
 */
import {
  type RecordedRequest,
  type Responder,
  type ScriptedReply,
  textOf,
} from "./fakes/openai-server.ts";
import { type ForwardOptions, forwardingModel } from "./recorded-model.ts";

/** One request the bot sent the model, read for what a test asks about. */
export interface ModelRequest {
  /** The tools the bot offered, by name, in the order it sent them. */
  readonly tools: readonly string[];
  /** The system prompt (the persona first), "" when there was none. */
  readonly system: string;
  /** The text of the last message a person wrote in the conversation, as the model saw it. */
  readonly lastUserText: string;
  /** The results of the tool calls since that message, in order. */
  readonly toolResults: readonly { readonly id: string; readonly content: string }[];
  /** The last of them, or undefined when no tool ran since the person wrote. */
  readonly lastToolResult: string | undefined;
  /** How many model replies this turn had before this request (0: the turn's first request). */
  readonly step: number;
  /** The raw JSON body, for anything else. */
  // biome-ignore lint/suspicious/noExplicitAny: the OpenAI request body is loose JSON
  readonly body: any;
}

/**
 * What the model does in one reply:
 * - a string, or `{ text }`: answers with that text;
 * - `{ tool, args }` or `{ tools: [...] }`: calls tools (the bot runs them and asks again);
 * - `{ stall: true }`: sends the start of a reply and then nothing, holding the connection (a stuck model);
 * - `{ error: 500 }`: answers an HTTP error (429 and 5xx are retried by the bot, as with a real provider);
 * - a function of the request: decides at the time (e.g. quoting `lastToolResult`).
 */
export type ModelStep =
  | string
  | { readonly text: string; readonly delayMs?: number }
  | { readonly tool: string; readonly args?: unknown; readonly delayMs?: number }
  | { readonly tools: readonly { readonly name: string; readonly args?: unknown }[] }
  | { readonly stall: true }
  | { readonly error: number; readonly message?: string }
  | ((request: ModelRequest) => ModelStep);

/** When a rule applies: the last user text contains the string (case-insensitive), matches the pattern, or passes the test. */
export type ModelMatch = string | RegExp | ((request: ModelRequest) => boolean);

export interface ModelRule {
  readonly when: ModelMatch;
  /**
   * One step, or the steps of a turn in order: the turn's first request gets
   * the first, the request after the tools ran the second, and so on; the
   * last one repeats if the bot asks again.
   */
  readonly reply: ModelStep | readonly ModelStep[];
}

export interface ModelScript {
  /** Tried in order on every request the sequence does not answer; the first that matches answers. */
  readonly rules?: readonly ModelRule[];
  /** Answers the first requests, one step each, before any rule is tried. */
  readonly sequence?: readonly ModelStep[];
  /** Answers what nothing else does. Default: `echo: <last user text>`. */
  readonly otherwise?: ModelStep;
  /**
   * Answers what the sequence and the rules do not from a real model, through
   * a cache file that replays offline (recorded-model.ts); `otherwise` is then unused.
   */
  readonly forward?: ForwardOptions;
}

/** A script's step could not be turned into a reply; the message names the step. */
export class ModelScriptError extends Error {
  override readonly name = "ModelScriptError";
}

/** Reads a recorded request of the fake OpenAI server as a {@link ModelRequest}. */
export function readModelRequest(recorded: Pick<RecordedRequest, "body">): ModelRequest {
  const body = recorded.body ?? {};
  const messages: { role?: string; content?: unknown; tool_call_id?: string }[] = Array.isArray(
    body.messages,
  )
    ? body.messages
    : [];
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const since = messages.slice(lastUser + 1);
  const toolResults = since
    .filter((m) => m.role === "tool")
    .map((m) => ({ id: String(m.tool_call_id ?? ""), content: textOf(m.content) }));
  const tools: { function?: { name?: string } }[] = Array.isArray(body.tools) ? body.tools : [];
  return {
    tools: tools.map((t) => String(t.function?.name ?? "")),
    system: messages
      .filter((m) => m.role === "system")
      .map((m) => textOf(m.content))
      .join("\n\n"),
    lastUserText: lastUser < 0 ? "" : textOf(messages[lastUser]?.content),
    toolResults,
    lastToolResult: toolResults.at(-1)?.content,
    step: since.filter((m) => m.role === "assistant").length,
    body,
  };
}

/** The fake server's responder for a script; the kit's test model runs it. */
export function scriptedModel(script: ModelScript = {}): Responder {
  const sequence = [...(script.sequence ?? [])];
  const real = script.forward ? forwardingModel(script.forward) : undefined;
  return (recorded) => {
    const request = readModelRequest(recorded);
    const next = sequence.shift();
    if (next !== undefined) return replyFor(next, request);
    for (const rule of script.rules ?? []) {
      if (!matches(rule.when, request)) continue;
      const steps = Array.isArray(rule.reply) ? rule.reply : [rule.reply as ModelStep];
      const step = steps[Math.min(request.step, steps.length - 1)];
      if (step !== undefined) return replyFor(step, request);
    }
    if (real) return real(recorded);
    return replyFor(script.otherwise ?? ((r) => `echo: ${r.lastUserText}`), request);
  };
}

function matches(when: ModelMatch, request: ModelRequest): boolean {
  if (typeof when === "string") {
    return request.lastUserText.toLowerCase().includes(when.toLowerCase());
  }
  if (when instanceof RegExp) return when.test(request.lastUserText);
  return when(request);
}

/** One step as the fake server's reply. */
export function replyFor(step: ModelStep, request: ModelRequest): ScriptedReply {
  if (typeof step === "function") return replyFor(step(request), request);
  if (typeof step === "string") return { content: step };
  if ("text" in step) return { content: step.text, ...delay(step) };
  if ("tool" in step) {
    return { toolCalls: [{ name: step.tool, arguments: step.args ?? {} }], ...delay(step) };
  }
  if ("tools" in step) {
    return { toolCalls: step.tools.map((t) => ({ name: t.name, arguments: t.args ?? {} })) };
  }
  if ("stall" in step) return { content: "…", stallAfterChunks: 1 };
  if ("error" in step) {
    return {
      status: step.error,
      errorBody: {
        error: { message: step.message ?? `scripted error ${step.error}`, type: "server_error" },
      },
    };
  }
  throw new ModelScriptError(
    `A model step must be text, a tool call, a stall or an error, not ${JSON.stringify(step)}.`,
  );
}

function delay(step: { readonly delayMs?: number }): Pick<ScriptedReply, "delayMs"> {
  return step.delayMs === undefined ? {} : { delayMs: step.delayMs };
}
