import { parentPort } from "node:worker_threads";
import { documentText } from "./document.ts";
import { DocumentBoundError, type DocumentBounds } from "./document-bounds.ts";

/** What the pool asks of a parser thread: one document at a time. */
export interface ParseRequest {
  readonly bytes: Uint8Array;
  readonly type: string;
  readonly bounds: DocumentBounds;
}

/** What the thread answers: the text, or the note's reason and whether a bound refused it. */
export type ParseAnswer =
  | { readonly ok: true; readonly text: string; readonly pages?: number; readonly cut?: string }
  | { readonly ok: false; readonly problem: string; readonly bound: boolean };

/**
 * The entry of a parser thread (see `DocumentParsers`): it reads documents
 * as the pool sends them, one at a time, and answers each. Anything a
 * parser throws becomes a problem; what it cannot throw (its heap, a
 * deadline) the pool sees from outside.
 */
parentPort?.on("message", async (request: ParseRequest) => {
  parentPort?.postMessage(await answer(request));
});

async function answer(request: ParseRequest): Promise<ParseAnswer> {
  try {
    const doc = await documentText(request.bytes, request.type, request.bounds);
    return doc === undefined ? { ok: true, text: "" } : { ok: true, ...doc };
  } catch (error) {
    if (error instanceof DocumentBoundError) {
      return { ok: false, problem: error.message, bound: true };
    }
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      return { ok: false, problem: "it is nested too deeply to read", bound: true };
    }
    return {
      ok: false,
      problem: (error as Error).message?.slice(0, 200) || "unreadable",
      bound: false,
    };
  }
}
