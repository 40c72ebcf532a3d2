import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Update } from "grammy/types";
import type { LoggerPort } from "../../core/logger.ts";
import type { OpsServer, RouteHandler } from "../../observability/http.ts";
import { UpdateInFlightError } from "./update-ledger.ts";
import { isUpdateId } from "./update-window.ts";

export interface TelegramWebhookOptions {
  /**
   * Takes one update (the bot's middleware): resolves once it is queued,
   * answered, ignored or skipped; throws when it could not be taken.
   */
  readonly take: (update: Update) => Promise<void>;
  /** Whether a failure of `take` passes (Redis, the queue): answered 500, so Telegram delivers it again. */
  readonly isTransient: (error: unknown) => boolean;
  /** An update `take` failed for any other reason: tell the person, log, count. It is answered 200. */
  readonly skip: (update: Update, error: unknown) => Promise<void>;
  /** The path Telegram posts to: the webhook URL's path, e.g. `/telegram`. */
  readonly path: string;
  /** `X-Telegram-Bot-Api-Secret-Token` must equal it (compared in constant time). */
  readonly secret: string;
  /** The process's HTTP server; without one the webhook listens on `port` itself. */
  readonly http?: OpsServer;
  readonly port?: number;
  readonly host?: string;
  /** How long a post may take before it is answered 500 (default 10 s); the update is still taken. */
  readonly timeoutMs?: number;
  readonly logger: LoggerPort;
  readonly describe: (error: unknown) => string;
}

/** The webhook endpoint while it runs. */
export interface TelegramWebhook {
  /** The port it listens on (its own, or the process server's when mounted there). */
  readonly port: number;
  /** Stops taking updates: later posts get 503, so Telegram keeps them and delivers them again. */
  close(): Promise<void>;
}

/** Far above any update Telegram sends (a 4,096-character text, a caption, their entities). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Receives updates over HTTPS from Telegram. The answer tells Telegram
 * whether to deliver the update again:
 *
 * - 200 once the update was taken: queued, answered, ignored (not for the
 *   bot, a kind it does not take), or skipped after one clear reply because
 *   it failed for a reason trying again would not fix (a bug, a payload
 *   nothing can read), so Telegram does not deliver it forever;
 * - 500 when it could not be taken now (Redis or the queue away, another
 *   delivery of it still being taken, slower than `timeoutMs`): Telegram
 *   delivers it again, and never gets 200 for an update that was not queued;
 * - 401 for a wrong secret, 400 for a body that is not JSON, 413 for one far
 *   too big, 503 while stopping.
 *
 * grammY's `webhookCallback` answers 500 to any failure, including a body
 * it cannot read, which Telegram would then deliver forever; this keeps
 * grammY's middleware (through `take`) and replaces only that.
 *
 * @example
 * await serveTelegramWebhook({ take, isTransient, skip, path: "/telegram", secret, http, logger, describe });
 * await bot.api.setWebhook("https://bot.example.com/telegram", { secret_token: secret });
 */
export async function serveTelegramWebhook(
  options: TelegramWebhookOptions,
): Promise<TelegramWebhook> {
  let open = true;
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!open) return void res.writeHead(503).end("stopping");
    if (!secretMatches(req.headers["x-telegram-bot-api-secret-token"], options.secret)) {
      return void res.writeHead(401).end("secret token is wrong");
    }
    const body = await readBody(req);
    if (body === undefined) return void res.writeHead(413).end("too big for an update");
    let update: unknown;
    try {
      update = JSON.parse(body);
    } catch {
      options.logger.warn("a Telegram webhook post was not JSON; answered 400", {
        bytes: Buffer.byteLength(body),
      });
      return void res.writeHead(400).end("not JSON");
    }
    const id = (update as { update_id?: unknown } | null)?.update_id;
    if (typeof update !== "object" || update === null || Array.isArray(update) || !isUpdateId(id)) {
      options.logger.warn("a Telegram webhook post held no update; it is ignored", {
        body: body.slice(0, 200),
      });
      return void res.writeHead(200).end("ignored");
    }
    try {
      await within(options.take(update as Update), options.timeoutMs ?? 10_000);
      res.writeHead(200).end("ok");
    } catch (error) {
      if (error instanceof WebhookTimeout || options.isTransient(error)) {
        if (!(error instanceof UpdateInFlightError)) {
          options.logger.warn(
            `Telegram update ${id} could not be taken now; answered 500, so Telegram delivers it again`,
            { error: options.describe(error) },
          );
        }
        return void res.writeHead(500).end("try again");
      }
      await options.skip(update as Update, error).catch(() => {});
      res.writeHead(200).end("skipped");
    }
  };
  // A post that breaks off mid-body (or anything else unforeseen) must not end the process.
  const handle: RouteHandler = (req, res) =>
    serve(req, res).catch((error: unknown) => {
      options.logger.warn("a Telegram webhook post failed; Telegram delivers it again", {
        error: options.describe(error),
      });
      if (!res.headersSent) res.writeHead(500).end("try again");
      else res.destroy();
    });
  if (options.http) {
    options.http.route("POST", options.path, handle);
    return {
      port: options.http.port,
      close: async () => {
        open = false;
      },
    };
  }
  const server = await listen(options, handle);
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        open = false;
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}

class WebhookTimeout extends Error {
  override readonly name = "WebhookTimeout";
  constructor(ms: number) {
    super(
      `The update took longer than ${ms} ms to take; it is still being taken, and Telegram's next delivery finds it taken.`,
    );
  }
}

/** The task's outcome, or a WebhookTimeout after `ms`; the task keeps running either way. */
function within(task: Promise<void>, ms: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new WebhookTimeout(ms)), ms);
    task.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** The request body as text; undefined when it is over {@link MAX_BODY_BYTES}. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    size += (part as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts).toString("utf8");
}

/** Whether the header carries the secret, compared without leaking how much of it matched. */
function secretMatches(header: string | string[] | undefined, secret: string): boolean {
  if (typeof header !== "string") return false;
  const given = createHash("sha256").update(header).digest();
  const wanted = createHash("sha256").update(secret).digest();
  return timingSafeEqual(given, wanted);
}

/** A server of its own, for a process whose HTTP server is not shared with channels. */
async function listen(options: TelegramWebhookOptions, handle: RouteHandler): Promise<Server> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://webhook").pathname;
    if (path !== options.path) return void res.writeHead(404).end("not found");
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 3000, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}
