import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Metrics } from "./metrics.ts";

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface OpsServerOptions {
  /** 0 picks a free port; read the bound one from `server.port`. */
  readonly port: number;
  /** Defaults to every interface, so probes and scrapers can reach it. */
  readonly host?: string;
  readonly metrics: Metrics;
  /** Whether this process can take work now (Redis connected, workers started). */
  readonly ready: () => boolean | Promise<boolean>;
  /** Where handler failures are reported. */
  readonly logger?: { error(fields: object, message: string): void };
}

export interface OpsServer {
  readonly port: number;
  readonly host: string;
  /**
   * Mounts another handler, e.g. Slack's events endpoint. Paths match
   * exactly, without the query string.
   *
   * @example
   * server.route("POST", "/slack/events", (req, res) => receiver.handle(req, res));
   */
  route(method: string, path: string, handler: RouteHandler): void;
  /** Hands every request under `prefix` (itself and `prefix/...`, any method) to `handler`. */
  mount(prefix: string, handler: RouteHandler): void;
  /** Stops listening and drops idle keep-alive connections. */
  close(): Promise<void>;
}

export class RouteConflictError extends Error {
  override readonly name = "RouteConflictError";
  constructor(
    readonly method: string,
    readonly path: string,
  ) {
    super(
      `${method} ${path} is already mounted on the ops server. Mount each route once, or pick another path.`,
    );
  }
}

function text(res: ServerResponse, status: number, body: string, contentType = "text/plain") {
  res.writeHead(status, { "content-type": `${contentType}; charset=utf-8` }).end(body);
}

/**
 * The routes of the ops server: exact paths by method, and prefixes mounted
 * whole. A handler that throws is logged and answers 500 (or drops the
 * connection when its headers are already sent).
 */
class OpsRoutes {
  readonly #routes = new Map<string, Map<string, RouteHandler>>();
  readonly #mounts = new Map<string, RouteHandler>();

  constructor(private readonly logger: OpsServerOptions["logger"]) {}

  route(method: string, path: string, handler: RouteHandler): void {
    const upper = method.toUpperCase();
    const byMethod = this.#routes.get(path) ?? new Map<string, RouteHandler>();
    if (byMethod.has(upper)) throw new RouteConflictError(upper, path);
    byMethod.set(upper, handler);
    this.#routes.set(path, byMethod);
  }

  mount(prefix: string, handler: RouteHandler): void {
    if (this.#mounts.has(prefix)) throw new RouteConflictError("*", prefix);
    this.#mounts.set(prefix, handler);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://ops").pathname;
    const byMethod = this.#routes.get(path);
    const mounted = byMethod ? undefined : mountFor(this.#mounts, path);
    if (mounted) return this.#serve(mounted, req, res, path);
    if (!byMethod) return text(res, 404, "not found");
    const handler = byMethod.get(req.method ?? "GET");
    if (!handler) {
      res.setHeader("allow", [...byMethod.keys()].join(", "));
      return text(res, 405, "method not allowed");
    }
    await this.#serve(handler, req, res, path);
  }

  async #serve(handler: RouteHandler, req: IncomingMessage, res: ServerResponse, path: string) {
    try {
      await handler(req, res);
    } catch (error) {
      this.logger?.error({ err: error, method: req.method, path }, "ops route failed");
      if (!res.headersSent) text(res, 500, "internal error");
      else res.destroy();
    }
  }
}

/** `/healthz`, `/readyz` and `/metrics`, which every ops server answers. */
function routeProbes(routes: OpsRoutes, options: OpsServerOptions): void {
  routes.route("GET", "/healthz", (_req, res) => text(res, 200, "ok"));
  routes.route("GET", "/readyz", async (_req, res) => {
    let ready = false;
    try {
      ready = await options.ready();
    } catch {
      // A readiness check that throws means not ready; the probe retries.
    }
    text(res, ready ? 200 : 503, ready ? "ready" : "not ready");
  });
  routes.route("GET", "/metrics", async (_req, res) => {
    const body = await options.metrics.exposition();
    res.writeHead(200, { "content-type": options.metrics.contentType }).end(body);
  });
}

/**
 * The process's operational HTTP endpoint: `GET /metrics` (Prometheus),
 * `GET /healthz` (alive), `GET /readyz` (200 when `ready()`, else 503), plus
 * any routes mounted later with `route()`.
 *
 * @example
 * const ops = await startOpsServer({ port: 9464, metrics, ready: () => redis.status === "ready" });
 * // ... on shutdown:
 * await ops.close();
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const routes = new OpsRoutes(options.logger);
  routeProbes(routes, options);
  const server = createServer((req, res) => routes.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    port: address.port,
    host: address.address,
    route: (method, path, handler) => routes.route(method, path, handler),
    mount: (prefix, handler) => routes.mount(prefix, handler),
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

function mountFor(mounts: Map<string, RouteHandler>, path: string): RouteHandler | undefined {
  for (const [prefix, handler] of mounts) {
    if (path === prefix || path.startsWith(`${prefix}/`)) return handler;
  }
  return undefined;
}
