import { request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type LocalServer, listenLocal } from "../../src/testing/fakes/local-server.ts";

export interface LatencyProxyOptions {
  /** The fake to forward to, e.g. `http://127.0.0.1:4567`. */
  readonly target: string;
  /** How long a request travels to the fake (ms), by request path. */
  readonly toFake?: (path: string) => number;
  /**
   * How long the fake's answer travels back (ms), by request path: the
   * platform has acted by then. A promise holds the answer until it settles.
   */
  readonly fromFake?: (path: string) => number | Promise<void>;
}

/**
 * A platform's round trip in front of a fake: every request is forwarded
 * after `toFake` ms and its answer returned `fromFake` ms after the fake
 * gave it. A worker killed during `fromFake` has had its post made by the
 * platform without hearing back, which is the window crash tests aim at.
 */
export async function startLatencyProxy(options: LatencyProxyOptions): Promise<LocalServer> {
  const target = new URL(options.target);
  return listenLocal(async (req, res) => {
    const path = req.url ?? "/";
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    await sleep(options.toFake?.(path) ?? 0);
    const answer = await new Promise<{ status: number; headers: object; body: Buffer }>(
      (resolve, reject) => {
        const forwarded = request(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path,
            headers: { ...req.headers, host: target.host },
          },
          async (upstream) => {
            const body: Buffer[] = [];
            for await (const chunk of upstream) body.push(chunk as Buffer);
            resolve({
              status: upstream.statusCode ?? 502,
              headers: upstream.headers,
              body: Buffer.concat(body),
            });
          },
        );
        forwarded.on("error", reject);
        forwarded.end(Buffer.concat(chunks));
      },
    );
    const back = options.fromFake?.(path) ?? 0;
    await (typeof back === "number" ? sleep(back) : back);
    if (res.destroyed) return;
    const headers = { ...answer.headers } as Record<string, string | string[] | undefined>;
    delete headers["transfer-encoding"];
    headers["content-length"] = String(answer.body.length);
    res.writeHead(answer.status, headers as Record<string, string | string[]>).end(answer.body);
  });
}
