import type { RecordedRequest, Responder } from "../../src/testing/fakes/openai-server.ts";

/**
 * The model the chaos suite talks to. Every message a scenario sends is a
 * tag (`msg-c3-7`: conversation 3, its 7th message), and the answer to a
 * turn names the tags of all the messages the turn answers, first, in one
 * word, so even the first streamed edit says which messages it answers:
 *
 *   msg-c3-7+msg-c3-8: alpha bravo … (end)
 *
 * A turn that collects several messages (the queue mode `collect`) answers
 * them together; the ledger reads the tags back off what the platform shows.
 */

export const TAG = /msg-c\d+-\d+/g;

const WORDS = [
  "alpha",
  "bravo",
  "charlie",
  "delta",
  "echo",
  "foxtrot",
  "golf",
  "hotel",
  "india",
  "juliett",
  "kilo",
  "lima",
  "mike",
  "november",
  "oscar",
  "papa",
  "quebec",
  "romeo",
  "sierra",
  "tango",
];

/** Whether a text names any message (TAG is global, so `TAG.test` would keep state between calls). */
export function hasTag(text: string): boolean {
  return (text.match(TAG) ?? []).length > 0;
}

export function tagOf(conversation: number, index: number): string {
  return `msg-c${conversation}-${index}`;
}

/** The whole answer to a turn that took these messages, as the platform should show it in the end. */
export function answerFor(tags: readonly string[]): string {
  return `${tags.length > 0 ? tags.join("+") : "untagged"}: ${WORDS.join(" ")} (end)`;
}

/** The tags of the messages a request answers: the user messages after the last answer. */
export function tagsOfRequest(request: RecordedRequest): string[] {
  const messages: { role?: string; content?: unknown }[] = request.body?.messages ?? [];
  const lastAnswer = messages.findLastIndex((m) => m.role === "assistant");
  return messages
    .slice(lastAnswer + 1)
    .filter((m) => m.role === "user")
    .flatMap((m) => (typeof m.content === "string" ? (m.content.match(TAG) ?? []) : []));
}

/**
 * Answers with {@link answerFor}, streamed word by word `chunkDelayMs` apart,
 * so the answer streams for about 22 × that: long enough for several stream
 * edits, and for a kill between two of them.
 */
export function chaosResponder(chunkDelayMs: number): Responder {
  return (request) => ({ content: answerFor(tagsOfRequest(request)), chunkDelayMs });
}
