import type { z } from "zod";
import { redactSecrets } from "../../observability/secrets.ts";
import { readCapped } from "./capped-body.ts";
import { WebSearchError } from "./errors.ts";
import { plainAgent, undici } from "./undici.ts";

/** A search API's answer is a few kilobytes; anything past this is not one. */
const MAX_ANSWER_BYTES = 2_000_000;
const MAX_DETAIL_CHARS = 200;

export interface SearchCall<T> {
  /** The provider's name, for messages. */
  readonly label: string;
  readonly url: URL;
  readonly method: "GET" | "POST";
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** What a successful answer looks like; anything else is "not search results". */
  readonly schema: z.ZodType<T>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Never to appear in a message, even when the provider echoes it back. */
  readonly secrets: readonly string[];
  /** What to do about an HTTP error status, in the provider's terms. */
  readonly hint: (status: number) => string;
}

/**
 * One request to a search API, returning its parsed JSON answer. Every way it
 * can fail (no connection, too slow, an error status, not JSON, not the
 * expected shape) becomes a {@link WebSearchError} saying which, so the model
 * can tell the person search is down instead of guessing. An abort of the
 * caller's signal rethrows its reason: the runner has answered already.
 */
export async function searchJson<T>(call: SearchCall<T>): Promise<T> {
  const deadline = AbortSignal.timeout(call.timeoutMs);
  let text: string;
  try {
    const response = await undici().fetch(call.url, {
      method: call.method,
      headers: { accept: "application/json", ...call.headers },
      ...(call.body === undefined ? {} : { body: call.body }),
      signal: AbortSignal.any([call.signal, deadline]),
      dispatcher: plainAgent(),
    });
    const answer = await readCapped(response.body, MAX_ANSWER_BYTES);
    text = new TextDecoder().decode(answer.bytes);
    if (!response.ok) {
      const detail = errorDetail(text);
      throw new WebSearchError(
        call.label,
        `${call.label} answered HTTP ${response.status}${detail === "" ? "" : ` (${redactSecrets(detail, call.secrets)})`}. ${call.hint(response.status)}`,
      );
    }
  } catch (error) {
    if (call.signal.aborted) throw call.signal.reason ?? error;
    if (error instanceof WebSearchError) throw error;
    if (deadline.aborted) {
      throw new WebSearchError(
        call.label,
        `${call.label} did not answer within ${Math.round(call.timeoutMs / 100) / 10} s. Try again later, or answer without searching.`,
      );
    }
    const cause = error instanceof TypeError && error.cause instanceof Error ? error.cause : error;
    const reason = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    throw new WebSearchError(
      call.label,
      `could not reach ${call.label} at ${call.url.origin} (${redactSecrets(String(reason), call.secrets)}). Search is down; answer without it and tell the person.`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WebSearchError(
      call.label,
      `${call.label} answered with something that is not JSON. The operator should check that web.search.url points at the search API.`,
    );
  }
  const parsed = call.schema.safeParse(json);
  if (!parsed.success) {
    throw new WebSearchError(
      call.label,
      `${call.label} answered JSON that holds no search results. The operator should check that web.search.url points at the search API.`,
    );
  }
  return parsed.data;
}

/** The provider's own error message, from the JSON error shapes search APIs use, or the start of the text. */
function errorDetail(text: string): string {
  let detail: string;
  try {
    detail = messageIn(JSON.parse(text), 0) ?? "";
  } catch {
    // An HTML error page says nothing useful in a sentence.
    detail = /^\s*</.test(text) ? "" : text;
  }
  const flat = detail.replace(/\s+/g, " ").trim();
  return flat.length > MAX_DETAIL_CHARS ? `${flat.slice(0, MAX_DETAIL_CHARS)}…` : flat;
}

/**
 * The first string under `detail`, `message` or `error`, a few levels down:
 * Brave says `{ error: { detail } }`, Tavily `{ detail: { error } }`.
 */
function messageIn(value: unknown, depth: number): string | undefined {
  if (typeof value === "string") return value;
  if (depth > 3 || value === null || typeof value !== "object") return undefined;
  for (const key of ["detail", "message", "error"]) {
    const found = messageIn((value as Record<string, unknown>)[key], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
