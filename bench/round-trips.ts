/**
 * Counts ordered Redis round trips: a TCP proxy in front of Redis that
 * counts, per client connection, each time the client writes after Redis
 * has answered it. Commands a client sends before the answer to earlier
 * ones (a pipeline, or concurrent commands on one connection) are one round
 * trip; a command sent because an answer came back is another. Summed over
 * every connection of a process while it runs one turn at a time, that is
 * the number of waits on Redis a turn has on its path.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface RoundTripProxy {
  /** A redis:// URL through the proxy. */
  readonly url: string;
  /** Round trips counted since the proxy started (or since the last reset). */
  count(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startRoundTripProxy(target: {
  host: string;
  port: number;
}): Promise<RoundTripProxy> {
  let trips = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    // True once Redis answered since the client last wrote: the next write waited for it.
    let answered = true;
    client.on("data", (chunk) => {
      if (answered) trips++;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      answered = true;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end);
    upstream.on("close", end);
    client.on("error", end);
    upstream.on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${port}`,
    count: () => trips,
    reset: () => {
      trips = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
