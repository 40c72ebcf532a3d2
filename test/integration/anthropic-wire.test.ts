import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createGzip } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicProvider } from "../../src/providers/anthropic/provider.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/testing/fakes/anthropic.ts";
import { ask, failureOf } from "../support/provider.ts";

/**
 * What the wire can do to a Claude reply that the fake Messages API does
 * not: a proxy that compresses it, a base URL that redirects, a connection
 * that breaks in the middle. The provider reads the body off the socket
 * (model-fetch.ts, anthropic/stream.ts) and must take each as the SDK over
 * Node's fetch did.
 */

const KEY = "sk-ant-wire-SECRET";
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const provider = (baseURL: string) =>
  createAnthropicProvider({ apiKey: KEY, baseURL, model: "claude-test", sleep: async () => {} });

/** A local server on a free port, closed after the test; its base URL. */
async function serving(
  handle: (req: IncomingMessage, res: ServerResponse, at: number) => void,
): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => handle(req, res, ++requests));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests: () => requests };
}

/** The fake Messages API, needing no key: fetch drops it on a redirect to another origin. */
async function openFake(): Promise<FakeAnthropic> {
  const started = await startFakeAnthropic();
  closers.push(() => started.close());
  return started;
}

const sse = (type: string, body: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;

/** A whole reply of `text`, event by event, as the Messages API streams it. */
function replyEvents(text: string): string[] {
  return [
    sse("message_start", {
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-test",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 5, output_tokens: 1 },
      },
    }),
    sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    ...text
      .split(/(?<= )/)
      .map((piece) =>
        sse("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } }),
      ),
    sse("content_block_stop", { index: 0 }),
    sse("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } }),
    sse("message_stop", {}),
  ];
}

const STREAM_HEADERS = { "content-type": "text/event-stream; charset=utf-8" };

describe("a Claude reply on the wire", () => {
  it("reads a reply a proxy compressed though it was not asked to, as fetch did", async () => {
    const zipping = await serving((_req, res) => {
      res.writeHead(200, { ...STREAM_HEADERS, "content-encoding": "gzip" });
      const gzip = createGzip();
      gzip.pipe(res);
      // Flushed after every event, as a streaming proxy does.
      for (const event of replyEvents("Zipped and still streamed.")) {
        gzip.write(event);
        gzip.flush();
      }
      gzip.end();
    });
    const seen: string[] = [];

    const reply = await provider(zipping.url).complete(ask({ onText: (t) => seen.push(t) }));

    expect(reply.content).toBe("Zipped and still streamed.");
    expect(reply.finishReason).toBe("stop");
    expect(seen.length).toBeGreaterThan(1);
  });

  it("follows a base URL that redirects, as fetch did (a local server sent on elsewhere)", async () => {
    const claude = await openFake();
    claude.script({ content: "Redirected, and still streamed." });
    // Every request sent on with a 307, which keeps the method and the body.
    const moved = await serving((req, res) => {
      res.writeHead(307, { location: `${claude.url}${req.url ?? ""}` });
      res.end();
    });

    const reply = await provider(moved.url).complete(ask());

    expect(reply.content).toBe("Redirected, and still streamed.");
    expect(claude.requests).toHaveLength(1);
  });

  it("tries again when the connection breaks before any text, and answers", async () => {
    const breaking = await serving((_req, res, at) => {
      res.writeHead(200, STREAM_HEADERS);
      const events = replyEvents("Second time lucky.");
      if (at === 1) {
        // The message starts, then the connection dies.
        res.write(events[0]);
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.end(events.join(""));
    });

    const reply = await provider(breaking.url).complete(ask());

    expect(reply.content).toBe("Second time lucky.");
    expect(breaking.requests()).toBe(2);
  });

  it("keeps the text a person saw when the connection breaks after it, and says so", async () => {
    const breaking = await serving((_req, res) => {
      res.writeHead(200, STREAM_HEADERS);
      const events = replyEvents("Here is the plan: first we pack.");
      res.write(events.slice(0, 4).join(""));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const seen: string[] = [];

    const error = await failureOf(
      provider(breaking.url).complete(ask({ onText: (t) => seen.push(t) })),
    );

    expect(seen.at(-1)).toBe("Here is ");
    expect(error.kind).toBe("network");
    expect(error.message).toBe(
      `Here is \n\n(The connection to the model provider at ${breaking.url} broke in the middle of a reply. Try again.)`,
    );
    // Text was shown: asking again would show a second answer.
    expect(breaking.requests()).toBe(1);
  });
});
