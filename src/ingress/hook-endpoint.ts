import type { IncomingMessage, ServerResponse } from "node:http";
import { fillEnvTemplate, MissingEnvError } from "../core/config/env-template.ts";
import {
  bodyDigest,
  type Hook,
  hookEventId,
  hookMessage,
  MAX_AGE_MS,
  verifyHookSignature,
} from "../core/hooks/index.ts";
import type { LoggerPort } from "../core/logger.ts";
import type { RouteHandler } from "../observability/http.ts";
import type { Enqueue } from "../ports/enqueue.ts";
import type { HookDeliveries } from "../store/hook-deliveries.ts";
import type { IngressGate } from "./access/gate.ts";

/** Where hooks are served: `POST /hooks/<name>`. */
export const HOOKS_PATH = "/hooks";

/** The largest body a hook reads; a longer one is refused before it is read whole. */
export const MAX_HOOK_BODY_BYTES = 1024 * 1024;

/** How long a taken delivery is remembered when the scheme signs a time: past the 5 minutes it is good for. */
const TIMED_CLAIM_MS = 2 * MAX_AGE_MS;
/** How long it is remembered when nothing stops an old call from being sent again (GitHub, GitLab). */
const UNTIMED_CLAIM_MS = 7 * 24 * 60 * 60_000;

export interface HookEndpointOptions {
  /** The hooks as the config says now (it reloads). */
  readonly hooks: () => readonly Hook[];
  /** Where the secrets' `${VARIABLE}`s are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Who may talk where, and the limits: the hook's owner passes it like any sender. */
  readonly gate: IngressGate;
  /** The conversation queue, as every message. */
  readonly enqueue: Enqueue;
  readonly deliveries: HookDeliveries;
  readonly logger: LoggerPort;
  /** Each secret once it is read, so no log line ever shows it. */
  readonly onSecret?: (secret: string) => void;
  readonly maxBodyBytes?: number;
  readonly now?: () => number;
}

/** A refusal as the caller reads it: what is wrong and how to send it right. */
interface Refusal {
  readonly status: number;
  readonly error: string;
  readonly problem: string;
  readonly fix: string;
}

/**
 * `POST /hooks/<name>`: a call from outside (CI, GitHub, GitLab, a script)
 * that becomes one message in the hook's conversation, from its owner.
 * Mount it on the process's HTTP server under {@link HOOKS_PATH}.
 *
 * A call is checked in this order, and each refusal answers JSON
 * `{ error, problem, fix }` without a turn: the hook exists (404), the body
 * is at most 1 MiB (413, refused before it is read whole), the signature
 * holds under the hook's scheme and is fresh (401; 400 for a missing
 * header), the body is JSON (415, 400), the delivery was not taken before
 * (409), the owner is let in (403) and within the limits (429). An accepted
 * call answers 202 once the message is queued, with the event id
 * `hook:<name>:<delivery>`: the queue dedupes it like any platform event.
 *
 * @example
 * ops.mount(HOOKS_PATH, hookEndpoint({ hooks: () => config.current.hooks, env, gate, enqueue: queue, deliveries, logger }));
 */
export function hookEndpoint(options: HookEndpointOptions): RouteHandler {
  const now = options.now ?? Date.now;
  const max = options.maxBodyBytes ?? MAX_HOOK_BODY_BYTES;

  const take = async (req: IncomingMessage, res: ServerResponse): Promise<Refusal | undefined> => {
    const name = decodeURIComponent(
      new URL(req.url ?? "/", "http://hooks").pathname.slice(HOOKS_PATH.length + 1),
    );
    const hook = options.hooks().find((h) => h.name === name);
    if (hook === undefined) {
      return {
        status: 404,
        error: "unknown_hook",
        problem: `no hook is named ${JSON.stringify(name.slice(0, 64))}`,
        fix: "check the URL (POST /hooks/<name>), or declare the hook under hooks: in the config",
      };
    }
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      return {
        status: 405,
        error: "method_not_allowed",
        problem: `${req.method} is not taken here`,
        fix: `send POST /hooks/${hook.name} with a JSON body`,
      };
    }
    const body = await readCapped(req, max);
    if (body === undefined) {
      res.setHeader("connection", "close");
      return {
        status: 413,
        error: "body_too_large",
        problem: `the body is over ${max} bytes`,
        fix: "send less: the fields the hook's prompt uses are enough",
      };
    }
    let secret: string;
    try {
      secret = fillEnvTemplate(hook.secret, options.env, `hooks: ${hook.name}'s secret`);
      options.onSecret?.(secret);
    } catch (error) {
      if (!(error instanceof MissingEnvError)) throw error;
      options.logger.warn("a hook's secret is not set; its calls are refused", {
        hook: hook.name,
        error: error.message,
      });
      return {
        status: 503,
        error: "secret_not_set",
        problem: "the hook's secret is not set where the bot runs",
        fix: `the operator sets ${error.variable} in the bot's environment`,
      };
    }
    const verdict = verifyHookSignature(hook.signature, secret, req.headers, body, now());
    if (verdict.kind === "refused") {
      return {
        status: verdict.status,
        error: verdict.status === 401 ? "bad_signature" : "bad_request",
        problem: verdict.problem,
        fix: verdict.fix,
      };
    }
    const parsed = jsonBody(req.headers["content-type"], body);
    if (parsed.kind === "refused") return parsed;
    const { delivery } = verdict;
    const digest = verdict.timed ? undefined : bodyDigest(body);
    const ttl = verdict.timed ? TIMED_CLAIM_MS : UNTIMED_CLAIM_MS;
    if (!(await options.deliveries.claim(hook.name, delivery, digest, ttl))) {
      return replayed(hook, delivery);
    }
    const message = hookMessage(hook, delivery, parsed.value, now());
    try {
      const admitted = await options.gate.admit(message);
      if (admitted.kind === "refused") {
        await options.deliveries.release(hook.name, delivery, digest);
        return {
          status: 403,
          error: "owner_refused",
          problem: `the hook's owner ${hook.owner.user} is not let into its target (${admitted.reason})`,
          fix: "let the owner in there (access:, or permissions: owners), or give the hook an owner who is",
        };
      }
      const metered = await options.gate.meter(message);
      if (metered.kind === "refused") {
        await options.deliveries.release(hook.name, delivery, digest);
        return {
          status: 429,
          error: "limited",
          problem: `a limit refused the call (${metered.reason})`,
          fix: "send it again later; the limits count the hook's owner like any person",
        };
      }
      const { fresh } = await options.enqueue.enqueue(message);
      if (!fresh) return replayed(hook, delivery);
    } catch (error) {
      await options.deliveries.release(hook.name, delivery, digest).catch(() => {});
      options.logger.warn("a hook call could not be queued", {
        hook: hook.name,
        delivery,
        error: (error as Error).message,
      });
      return {
        status: 503,
        error: "not_queued",
        problem: "the call could not be queued just now",
        fix: "send it again (same delivery id) in a little while",
      };
    }
    answer(res, 202, {
      accepted: true,
      hook: hook.name,
      delivery,
      event: hookEventId(hook.name, delivery),
    });
    return undefined;
  };

  return async (req, res) => {
    const refusal = await take(req, res);
    if (refusal === undefined) return;
    if (refusal.status !== 404) {
      options.logger.warn("a hook call was refused", {
        path: (req.url ?? "").slice(0, 100),
        status: refusal.status,
        problem: refusal.problem,
      });
    }
    const { status, ...body } = refusal;
    answer(res, status, body, () => {
      // A body left unread past the cap: nothing more of it is wanted.
      if (status === 413) req.destroy();
    });
  };
}

function replayed(hook: Hook, delivery: string): Refusal {
  return {
    status: 409,
    error: "replayed",
    problem: `delivery ${delivery} of hook ${hook.name} was taken already`,
    fix: "send each new call with a delivery id of its own; a call sent again is answered once",
  };
}

/** The body as JSON, or why not. */
function jsonBody(
  contentType: string | undefined,
  body: Uint8Array,
): { kind: "json"; value: unknown } | (Refusal & { kind: "refused" }) {
  const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type !== "" && type !== "application/json" && !type.endsWith("+json")) {
    return {
      kind: "refused",
      status: 415,
      error: "not_json",
      problem: `the body is ${type}, and hooks read JSON`,
      fix: 'send Content-Type: application/json (GitHub: Content type "application/json"); to pass text, send it as a JSON string field such as {"text": "..."}',
    };
  }
  try {
    return { kind: "json", value: JSON.parse(Buffer.from(body).toString("utf8")) as unknown };
  } catch (error) {
    return {
      kind: "refused",
      status: 400,
      error: "not_json",
      problem: `the body is not JSON (${(error as Error).message.slice(0, 120)})`,
      fix: 'send a JSON body such as {"summary": "3 tests failed"}',
    };
  }
}

/**
 * The request's body, or undefined once it is over `max` bytes (said by
 * Content-Length or found reading). Reading stops there without destroying
 * the request, so the 413 can still be answered.
 */
function readCapped(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      req.off("data", onData).off("end", onEnd).off("error", reject);
      req.pause();
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on("data", onData).once("end", onEnd).once("error", reject);
  });
}

function answer(res: ServerResponse, status: number, body: object, done?: () => void): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(`${JSON.stringify(body)}\n`, done);
}
