/**
 * A plain HTTP server on 127.0.0.1, for fakes of web services: the one place
 * a fake listens and closes. `close` also drops open connections, so a fake
 * that never answers (timeout tests) does not keep the test run alive.
 *
 * @example
 * const server = await listenLocal((req, res) => void res.end("hi"));
 * await fetch(server.url); // "hi"
 * await server.close();
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface LocalServerOptions {
  /**
   * Answers for a handler that threw before it started its response, in the
   * shape the faked service uses for its own failures. Default: a text 500.
   */
  onError?: (res: ServerResponse, error: unknown) => void;
  /** The port to listen on; 0 (the default) picks a free one. A fake restarts on its old port with it. */
  port?: number;
}

export interface LocalServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  /** The node server, for what shares its port (a WebSocket upgrade). */
  readonly server: Server;
  close(): Promise<void>;
}

const textError = (res: ServerResponse, error: unknown) =>
  void res.writeHead(500, { "content-type": "text/plain" }).end(`fake failed: ${String(error)}`);

export async function listenLocal(
  handler: Handler,
  { onError = textError, port = 0 }: LocalServerOptions = {},
): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      onError(res, error);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** The request body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString("utf8");
}

/** The request body as bytes, for what may be binary (a multipart upload). */
export async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Resolves when the client goes away before the response ended (an aborted request). */
export function clientGone(req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    res.on("close", () => {
      if (!res.writableEnded) resolve();
    });
    req.on("error", () => resolve());
  });
}

/** The JSON in `text`, or undefined where it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Resolves true after `ms` (never, for infinity), or false as soon as
 * `signal` aborts: how a fake waits before answering, so closing it ends the wait.
 */
export async function pause(ms: number | undefined, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (!ms) return true;
  if (ms === Number.POSITIVE_INFINITY) {
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    return false;
  }
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
