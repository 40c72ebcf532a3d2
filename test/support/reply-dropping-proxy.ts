import { connect, createServer, type Socket } from "node:net";

export interface ReplyDroppingProxy {
  /** `redis://127.0.0.1:<port>`: connect here instead of to Redis. */
  readonly url: string;
  /**
   * The next command whose bytes contain `text` reaches Redis and runs, and
   * its reply never reaches the client: the connection is cut instead.
   */
  dropReplyTo(text: string): void;
  /** How many replies were dropped so far. */
  readonly dropped: number;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a real Redis that can lose one reply: what a
 * client sees when Redis is killed after it ran a command (and, with
 * `appendfsync always`, wrote it to disk) but before the reply went out. The
 * client reconnects through the proxy and, as ioredis does by default,
 * sends the unanswered command again.
 */
export async function startReplyDroppingProxy(redisUrl: string): Promise<ReplyDroppingProxy> {
  const target = new URL(redisUrl);
  let armed: string | undefined;
  let dropped = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    let dropNext = false;
    client.on("data", (chunk: Buffer) => {
      if (armed !== undefined && chunk.includes(armed)) {
        armed = undefined;
        dropNext = true;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!dropNext) {
        client.write(chunk);
        return;
      }
      dropNext = false;
      dropped++;
      client.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    dropReplyTo: (text) => {
      armed = text;
    },
    get dropped() {
      return dropped;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
