import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Bot, BotError, webhookCallback } from "grammy";
import type { LoggerPort } from "../../core/availability/warnings.ts";
import type { OpsServer, RouteHandler } from "../../observability/http.ts";
import { UpdateInFlightError } from "./update-ledger.ts";

export interface TelegramWebhookOptions {
  readonly bot: Bot;
  /** The path Telegram posts to: the webhook URL's path, e.g. `/telegram`. */
  readonly path: string;
  /** `X-Telegram-Bot-Api-Secret-Token` must equal it (compared in constant time). */
  readonly secret: string;
  /** The process's HTTP server; without one the webhook listens on `port` itself. */
  readonly http?: OpsServer;
  readonly port?: number;
  readonly host?: string;
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

/**
 * Receives updates over HTTPS from Telegram. grammY's `webhookCallback`
 * checks the secret token in constant time and answers a wrong one with
 * 401; an update answers 200 only after it was taken (on the queue, or
 * answered), so a failure answers 500 and Telegram delivers it again.
 *
 * @example
 * await serveTelegramWebhook({ bot, path: "/telegram", secret, http: runtime.http, logger, describe });
 * await bot.api.setWebhook("https://bot.example.com/telegram", { secret_token: secret });
 */
export async function serveTelegramWebhook(
  options: TelegramWebhookOptions,
): Promise<TelegramWebhook> {
  const callback = webhookCallback(options.bot, "http", {
    secretToken: options.secret,
    onTimeout: "throw",
    timeoutMilliseconds: 10_000,
  });
  let open = true;
  const handle: RouteHandler = async (req, res) => {
    if (!open) return void res.writeHead(503).end("stopping");
    // Checked here in constant time, before grammY (which checks again) reads the body.
    if (!secretMatches(req.headers["x-telegram-bot-api-secret-token"], options.secret)) {
      return void res.writeHead(401).end("secret token is wrong");
    }
    try {
      await callback(req, res);
    } catch (error) {
      const cause = error instanceof BotError ? error.error : error;
      if (!(cause instanceof UpdateInFlightError)) {
        options.logger.warn(
          "a Telegram update could not be taken; Telegram will deliver it again",
          {
            error: options.describe(error),
          },
        );
      }
      if (!res.headersSent) res.writeHead(500).end("try again");
      else res.destroy();
    }
  };
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
