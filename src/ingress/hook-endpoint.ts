import type { IncomingMessage, ServerResponse } from "node:http";
import { fillEnvTemplate, MissingEnvError } from "../core/config/env-template.ts";
import type { InboundMessage } from "../core/conversation.ts";
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
import { type HookRefusal, jsonBody, readCapped } from "./hook-body.ts";

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
  const endpoint = new HookEndpoint(options);
  return (req, res) => endpoint.handle(req, res);
}

/** A call that passed every check but the queue's: what to claim and queue. */
interface Checked {
  readonly hook: Hook;
  readonly delivery: string;
  /** The body's SHA-256 when the scheme signs no time (a replay is caught by it too). */
  readonly digest: string | undefined;
  readonly ttlMs: number;
  readonly body: unknown;
}

/** The steps of one call, each answering a refusal or handing on what it found. */
class HookEndpoint {
  readonly #options: HookEndpointOptions;
  readonly #now: () => number;
  readonly #max: number;

  constructor(options: HookEndpointOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#max = options.maxBodyBytes ?? MAX_HOOK_BODY_BYTES;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const checked = await this.#check(req, res);
    if ("status" in checked) return this.#refuse(req, res, checked);
    const refusal = await this.#queue(checked);
    if (refusal !== undefined) return this.#refuse(req, res, refusal);
    const { hook, delivery } = checked;
    const event = hookEventId(hook.name, delivery);
    answer(res, 202, { accepted: true, hook: hook.name, delivery, event });
  }

  #refuse(req: IncomingMessage, res: ServerResponse, refusal: HookRefusal): void {
    if (refusal.status !== 404) {
      this.#options.logger.warn("a hook call was refused", {
        path: (req.url ?? "").slice(0, 100),
        status: refusal.status,
        problem: refusal.problem,
      });
    }
    const { status, ...body } = refusal;
    if (status === 413) res.setHeader("connection", "close");
    answer(res, status, body, () => {
      // A body left unread past the cap: nothing more of it is wanted.
      if (status === 413) req.destroy();
    });
  }

  /** The hook, the body within the cap, the signature, the JSON: a call worth queueing, or why not. */
  async #check(req: IncomingMessage, res: ServerResponse): Promise<Checked | HookRefusal> {
    const hook = this.#hookOf(req);
    if (hook === undefined) {
      return {
        status: 404,
        error: "unknown_hook",
        problem: `no hook is named ${JSON.stringify(nameOf(req).slice(0, 64))}`,
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
    const body = await readCapped(req, this.#max);
    if (body === undefined) {
      return {
        status: 413,
        error: "body_too_large",
        problem: `the body is over ${this.#max} bytes`,
        fix: "send less: the fields the hook's prompt uses are enough",
      };
    }
    const secret = this.#secretOf(hook);
    if (typeof secret !== "string") return secret;
    const verdict = verifyHookSignature(hook.signature, secret, req.headers, body, this.#now());
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
    return {
      hook,
      delivery: verdict.delivery,
      digest: verdict.timed ? undefined : bodyDigest(body),
      ttlMs: verdict.timed ? TIMED_CLAIM_MS : UNTIMED_CLAIM_MS,
      body: parsed.value,
    };
  }

  #hookOf(req: IncomingMessage): Hook | undefined {
    const name = nameOf(req);
    return this.#options.hooks().find((hook) => hook.name === name);
  }

  /** The hook's secret from the environment (registered with the log redaction), or a 503 naming the variable. */
  #secretOf(hook: Hook): string | HookRefusal {
    try {
      const secret = fillEnvTemplate(
        hook.secret,
        this.#options.env,
        `hooks: ${hook.name}'s secret`,
      );
      this.#options.onSecret?.(secret);
      return secret;
    } catch (error) {
      if (!(error instanceof MissingEnvError)) throw error;
      this.#options.logger.warn("a hook's secret is not set; its calls are refused", {
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
  }

  /**
   * Claims the delivery, lets the owner through the gate, queues the
   * message: undefined once queued. Anything short of queued gives the
   * claim back, so the sender may send the same delivery again.
   */
  async #queue(call: Checked): Promise<HookRefusal | undefined> {
    const { hook, delivery, digest } = call;
    const deliveries = this.#options.deliveries;
    const message = hookMessage(hook, delivery, call.body, this.#now());
    let claimed = false;
    try {
      if (!(await deliveries.claim(hook.name, delivery, digest, call.ttlMs))) {
        return replayed(hook, delivery);
      }
      claimed = true;
      const refusal = await this.#gate(hook, message);
      if (refusal !== undefined) {
        await deliveries.release(hook.name, delivery, digest);
        return refusal;
      }
      const { fresh } = await this.#options.enqueue.enqueue(message);
      return fresh ? undefined : replayed(hook, delivery);
    } catch (error) {
      if (claimed) await deliveries.release(hook.name, delivery, digest).catch(() => {});
      this.#options.logger.warn("a hook call could not be queued", {
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
  }

  /** The access gate and the limits, for the owner, as for any sender. */
  async #gate(hook: Hook, message: InboundMessage): Promise<HookRefusal | undefined> {
    const admitted = await this.#options.gate.admit(message);
    if (admitted.kind === "refused") {
      return {
        status: 403,
        error: "owner_refused",
        problem: `the hook's owner ${hook.owner.user} is not let into its target (${admitted.reason})`,
        fix: "let the owner in there (access:, or permissions: owners), or give the hook an owner who is",
      };
    }
    const metered = await this.#options.gate.meter(message);
    if (metered.kind === "refused") {
      return {
        status: 429,
        error: "limited",
        problem: `a limit refused the call (${metered.reason})`,
        fix: "send it again later; the limits count the hook's owner like any person",
      };
    }
    return undefined;
  }
}

/** The hook's name in the path (`/hooks/<name>`), or "" when it cannot be read. */
function nameOf(req: IncomingMessage): string {
  const path = new URL(req.url ?? "/", "http://hooks").pathname.slice(HOOKS_PATH.length + 1);
  try {
    return decodeURIComponent(path);
  } catch {
    return "";
  }
}

function replayed(hook: Hook, delivery: string): HookRefusal {
  return {
    status: 409,
    error: "replayed",
    problem: `delivery ${delivery} of hook ${hook.name} was taken already`,
    fix: "send each new call with a delivery id of its own; a call sent again is answered once",
  };
}

function answer(res: ServerResponse, status: number, body: object, done?: () => void): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(`${JSON.stringify(body)}\n`, done);
}
