import { type ResourceLimits, Worker } from "node:worker_threads";
import type { AttachmentsConfig } from "../../core/config/attachments-section.ts";
import { documentBounds } from "./document-bounds.ts";
import type { ParseAnswer, ParseRequest } from "./parse-thread.ts";

/**
 * Each parser thread's own heap and stack. 512 MB of old generation reads a
 * DOCX with some 40 MB of XML (mammoth holds the parts, a DOM and its own
 * tree at once) or a 500-page PDF; past it only that thread dies. The
 * stack stays at V8's usual size: a document nested deeper than it fails
 * with a RangeError the thread reports, rather than a crash.
 */
export const PARSER_LIMITS: ResourceLimits = Object.freeze({
  maxOldGenerationSizeMb: 512,
  maxYoungGenerationSizeMb: 32,
  stackSizeMb: 4,
});

/** Threads at most, so their heaps together stay bounded (2 x 512 MB) whatever arrives. */
const POOL_SIZE = 2;
/** An idle thread is ended after this, so a quiet worker holds no parser heap. */
const IDLE_MS = 60_000;

export interface DocumentParsersOptions {
  readonly size?: number;
  readonly limits?: ResourceLimits;
}

interface Parser {
  readonly thread: Worker;
  idle?: NodeJS.Timeout;
}

/**
 * A small pool of `worker_threads` that read documents (PDF, DOCX, HTML
 * and text) off the worker's main thread, each under {@link PARSER_LIMITS}
 * and a wall-clock budget. A parser that blows its heap, its stack or its
 * budget costs only its thread (ended, and started anew for the next
 * document); the event loop, and every other conversation, go on. At most
 * `size` documents are read at once; more wait their turn.
 *
 * @example
 * const answer = await parsers.parse({ bytes, type: "application/pdf" }, limits, signal);
 * // { ok: false, problem: "reading it took longer than 20 s", bound: false }
 */
export class DocumentParsers {
  readonly #size: number;
  readonly #limits: ResourceLimits;
  readonly #idle: Parser[] = [];
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(options: DocumentParsersOptions = {}) {
    this.#size = Math.max(1, options.size ?? POOL_SIZE);
    this.#limits = options.limits ?? PARSER_LIMITS;
  }

  /**
   * Reads one document within the section's bounds and `parse_ms` (counted
   * from when a thread takes it, not while it waits); never throws.
   */
  async parse(
    document: { readonly bytes: Uint8Array; readonly type: string },
    limits: AttachmentsConfig,
    signal: AbortSignal,
  ): Promise<ParseAnswer> {
    await this.#slot();
    try {
      const parser = this.#take();
      const request = { ...document, bounds: documentBounds(limits, Date.now()) };
      const answer = await this.#run(parser, request, limits.parseMs, signal);
      if (answer.kept) this.#putBack(parser);
      else await parser.thread.terminate().catch(() => {});
      return answer.answer;
    } catch (error) {
      return {
        ok: false,
        problem: `its reader did not start (${(error as Error).message})`,
        bound: false,
      };
    } finally {
      this.#release();
    }
  }

  /** A free slot, or a wait for one: a finished document hands its slot straight to the next. */
  async #slot(): Promise<void> {
    if (this.#running < this.#size) {
      this.#running++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }

  /** Ends every idle thread (a busy one ends when its document is done or its budget runs out). */
  async close(): Promise<void> {
    const idle = this.#idle.splice(0);
    for (const parser of idle) clearTimeout(parser.idle);
    await Promise.all(idle.map((parser) => parser.thread.terminate()));
  }

  #take(): Parser {
    const parser = this.#idle.pop() ?? { thread: startThread(this.#limits) };
    clearTimeout(parser.idle);
    return parser;
  }

  #putBack(parser: Parser): void {
    parser.idle = setTimeout(() => {
      const at = this.#idle.indexOf(parser);
      if (at >= 0) this.#idle.splice(at, 1);
      void parser.thread.terminate();
    }, IDLE_MS).unref();
    this.#idle.push(parser);
  }

  /** One document on one thread: its answer, or why the thread was lost (and then it is not kept). */
  #run(
    parser: Parser,
    request: ParseRequest,
    budgetMs: number,
    signal: AbortSignal,
  ): Promise<{ answer: ParseAnswer; kept: boolean }> {
    const { thread } = parser;
    return new Promise((resolve) => {
      const lost = (problem: string) => finish({ ok: false, problem, bound: false }, false);
      const onMessage = (answer: ParseAnswer) => finish(answer, true);
      const onError = (error: Error & { code?: string }) =>
        lost(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? `reading it needs more than ${this.#limits.maxOldGenerationSizeMb} MB of memory`
            : `its reader failed (${error.message.slice(0, 200)})`,
        );
      const onExit = (code: number) => lost(`its reader stopped (exit code ${code})`);
      const onAbort = () => lost("the turn was stopped");
      const timer = setTimeout(
        () => lost(`reading it took longer than ${shownTime(budgetMs)}`),
        budgetMs,
      );
      const finish = (answer: ParseAnswer, kept: boolean) => {
        clearTimeout(timer);
        thread.off("message", onMessage).off("error", onError).off("exit", onExit);
        signal.removeEventListener("abort", onAbort);
        resolve({ answer, kept });
      };
      thread.on("message", onMessage).on("error", onError).on("exit", onExit);
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted) onAbort();
      else thread.postMessage(request);
    });
  }
}

/** A budget as people read it: 20 s, 2.5 s, 300 ms. */
function shownTime(ms: number): string {
  return ms >= 1_000 ? `${Number((ms / 1_000).toFixed(1))} s` : `${ms} ms`;
}

/**
 * A parser thread. Built, its entry is parse-thread.js beside this file.
 * From source (tsx in development and tests, vitest), plain node cannot
 * load a .ts entry and a thread does not inherit the loader its parent
 * registered, so the thread registers tsx itself, then imports the entry.
 */
function startThread(resourceLimits: ResourceLimits): Worker {
  const fromSource = import.meta.url.endsWith(".ts");
  const entry = new URL(fromSource ? "./parse-thread.ts" : "./parse-thread.js", import.meta.url);
  const options = { resourceLimits, stdout: false, stderr: false };
  const tsx = fromSource ? tsxLoader() : undefined;
  const thread =
    tsx === undefined
      ? new Worker(entry, options)
      : new Worker(
          `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`,
          { ...options, eval: true },
        );
  // A thread's error is handled by the document it was reading; one after that (as it is ended) is moot.
  thread.on("error", () => {});
  thread.unref();
  return thread;
}

/** tsx's ESM API, when this process has it (a checkout); else the runtime loads .ts itself, or says why not. */
function tsxLoader(): string | undefined {
  try {
    return import.meta.resolve("tsx/esm/api");
  } catch {
    return undefined;
  }
}
