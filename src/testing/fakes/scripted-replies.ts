import type { ServerResponse } from "node:http";

/**
 * What a model fake answers each request with: the replies a test scripted,
 * in order, then whatever its responder makes of the request. The fakes of
 * Anthropic and OpenAI share it; each renders a reply its own way.
 */
export class ScriptedReplies<Request, Reply extends object> {
  readonly #queue: (Reply | ((request: Request) => Reply | Promise<Reply>))[] = [];
  readonly #closing = new AbortController();

  constructor(private responder: (request: Request) => Reply | Promise<Reply>) {}

  /** Queues replies; each request takes the next one before the responder is asked. */
  readonly script = (...replies: (Reply | ((request: Request) => Reply | Promise<Reply>))[]) =>
    void this.#queue.push(...replies);

  /** Answers every request past the scripted ones. */
  readonly setResponder = (responder: (request: Request) => Reply | Promise<Reply>): void => {
    this.responder = responder;
  };

  /** The reply to `request`: the next scripted one, else the responder's. */
  async next(request: Request): Promise<Reply> {
    const next = this.#queue.shift() ?? this.responder;
    return typeof next === "function" ? await next(request) : next;
  }

  /** Aborts when the fake closes or the client gives up on `res` (an SDK timeout): a reply stops waiting. */
  signalFor(res: ServerResponse): AbortSignal {
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    return AbortSignal.any([this.#closing.signal, gone.signal]);
  }

  /** Stops every reply that waits, then `close` (the server's). */
  close(close: () => Promise<void>): Promise<void> {
    this.#closing.abort();
    return close();
  }
}
