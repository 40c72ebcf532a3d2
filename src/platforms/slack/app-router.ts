import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { HTTPModuleFunctions, type HTTPReceiver, type Receiver } from "@slack/bolt";
import type { LoggerPort } from "../../core/logger.ts";
import { EVENTS_PATH } from "./http-screen.ts";
import type { SlackListenerSlot } from "./settings.ts";

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The key of the app without an `app_id` (the one of SLACK_BOT_TOKEN). */
const DEFAULT_APP = "";

/**
 * Several Slack apps (`slack.accounts`) on one Events API endpoint: every
 * request to `/slack/events` goes to the app its `api_app_id` names (in the
 * event envelope, an interaction's payload, a slash command's form), else to
 * the default app, and that app's own receiver verifies it with that app's
 * own signing secret. A request signed with app A's secret that claims to be
 * app B's is checked with B's secret, and refused.
 */
export class SlackAppRouter {
  readonly #apps = new Map<string, Listener>();
  #server: Promise<Server> | undefined;

  constructor(private readonly logger: LoggerPort) {}

  /** The router of a slot, made by the first app to start. */
  static of(slot: SlackListenerSlot, logger: LoggerPort): SlackAppRouter {
    slot.value ??= new SlackAppRouter(logger);
    return slot.value as SlackAppRouter;
  }

  /** Routes the app's requests to `listener`, and listens on `port` once. */
  add(appId: string | undefined, listener: Listener, port: number, host: string): Promise<Server> {
    this.#apps.set(appId ?? DEFAULT_APP, listener);
    this.#server ??= new Promise((resolve, reject) => {
      const server = createServer((req, res) => void this.#route(req, res));
      server.once("error", reject);
      server.listen(port, host, () => resolve(server));
    });
    return this.#server;
  }

  /** Stops routing to the app; the last one to go closes the listener. */
  async remove(appId: string | undefined): Promise<void> {
    this.#apps.delete(appId ?? DEFAULT_APP);
    if (this.#apps.size > 0 || !this.#server) return;
    const server = await this.#server.catch(() => undefined);
    this.#server = undefined;
    await new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://slack").pathname;
    let appId: string | undefined;
    if (req.method === "POST" && path === EVENTS_PATH) {
      try {
        // Buffered where Bolt looks for it (`rawBody`): the app's receiver verifies these bytes.
        await HTTPModuleFunctions.bufferIncomingMessage(req, HTTPModuleFunctions.defaultBodyLimit);
      } catch (error) {
        const tooLarge = HTTPModuleFunctions.isRawBodyError(error) && error.statusCode === 413;
        return answer(res, tooLarge ? 413 : 400);
      }
      appId = appIdOf(req);
    }
    const listener =
      (appId !== undefined ? this.#apps.get(appId) : undefined) ?? this.#apps.get(DEFAULT_APP);
    if (!listener) {
      this.logger.warn("a Slack request names an app this bot does not run; answered 404", {
        appId,
      });
      return answer(res, 404);
    }
    listener(req, res);
  }
}

/**
 * Bolt's HTTP receiver, on the shared router instead of a server of its
 * own: Bolt's App starts and stops it as it would its own.
 */
export class RoutedReceiver implements Receiver {
  constructor(
    private readonly inner: HTTPReceiver,
    private readonly router: SlackAppRouter,
    private readonly appId: string | undefined,
  ) {}

  init(app: Parameters<Receiver["init"]>[0]): void {
    this.inner.init(app);
  }

  /** What SlackChannel hands `App#start`: `{ port, host }`. */
  start(listen?: { port?: number; host?: string }): Promise<Server> {
    const listener: Listener = (req, res) => this.inner.requestListener(req, res);
    return this.router.add(this.appId, listener, listen?.port ?? 3000, listen?.host ?? "0.0.0.0");
  }

  stop(): Promise<void> {
    return this.router.remove(this.appId);
  }
}

/** `api_app_id` of a buffered request: a JSON envelope, an interaction's `payload`, a slash command's form. */
function appIdOf(req: IncomingMessage): string | undefined {
  try {
    const body = HTTPModuleFunctions.parseHTTPRequestBody(
      req as Parameters<typeof HTTPModuleFunctions.parseHTTPRequestBody>[0],
    ) as { api_app_id?: unknown } | null;
    return typeof body?.api_app_id === "string" ? body.api_app_id : undefined;
  } catch {
    return undefined; // the default app's receiver answers what it cannot parse
  }
}

function answer(res: ServerResponse, status: number): void {
  if (res.headersSent) return;
  res.writeHead(status);
  res.end();
}
