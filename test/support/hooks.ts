import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { type Hook, parseHookTemplate, signHook } from "../../src/core/hooks/index.ts";
import type { ScheduleTarget } from "../../src/core/schedules/index.ts";
import { IngressGate } from "../../src/ingress/access/gate.ts";
import { HOOKS_PATH, hookEndpoint } from "../../src/ingress/hook-endpoint.ts";
import { type OpsServer, startOpsServer } from "../../src/observability/http.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { HookDeliveries } from "../../src/store/hook-deliveries.ts";
import { OPEN_DMS } from "./channels.ts";
import type { Pipeline } from "./pipeline.ts";

/** The secret every test hook is signed with, from the variable its config names. */
export const HOOK_SECRET = "hook-secret-7f2a9c";
const ENV = { HOOK_TEST_SECRET: HOOK_SECRET };

/** A hook into `target`, run as `owner`, with CI's prompt. */
export function ciHook(target: Omit<ScheduleTarget, "conversation">, owner: string): Hook {
  return {
    name: "ci-failed",
    secret: "$" + "{HOOK_TEST_SECRET}",
    signature: "switchyard",
    target: { ...target, conversation: target.thread ?? target.channel },
    owner: { user: owner },
    prompt: parseHookTemplate(
      "CI failed: {{body.summary}}. Look at the log and tell us what broke.",
    ),
  };
}

export interface HookCall {
  readonly body: string;
  readonly delivery: string;
  /** Unix seconds; default now. */
  readonly timestamp?: number;
  /** Sign with another secret (a forger's). */
  readonly secret?: string;
  /** Send no signature at all. */
  readonly unsigned?: boolean;
}

export interface HookServer {
  readonly ops: OpsServer;
  /** `http://127.0.0.1:<port>/hooks/<name>`. */
  url(name: string): string;
  /** Posts a call to `/hooks/<name>` signed as the switchyard scheme says. */
  post(name: string, call: HookCall): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

/**
 * `POST /hooks/<name>` on an ops server of its own in front of the
 * pipeline's queue, as `switchyard start` mounts it in a process that
 * takes messages: the same gate, the pipeline's Redis for the deliveries.
 */
export async function serveTestHooks(
  pipe: Pipeline,
  hooks: readonly Hook[],
  config: () => SwitchyardConfig = () => OPEN_DMS,
  env: Readonly<Record<string, string | undefined>> = ENV,
): Promise<HookServer> {
  const ops = await startOpsServer({
    port: 0,
    host: "127.0.0.1",
    metrics: new Metrics(),
    ready: () => true,
  });
  ops.mount(
    HOOKS_PATH,
    hookEndpoint({
      hooks: () => hooks,
      env,
      gate: new IngressGate({ store: pipe.app.store, config }),
      enqueue: pipe.app.queue,
      deliveries: new HookDeliveries(pipe.app.redis, pipe.app.store.keys),
      logger: { warn: () => {} },
    }),
  );
  const url = (name: string) => `http://127.0.0.1:${ops.port}/hooks/${name}`;
  return {
    ops,
    url,
    async post(name, call) {
      const timestamp = call.timestamp ?? Math.floor(Date.now() / 1000);
      const bytes = Buffer.from(call.body);
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "x-switchyard-timestamp": String(timestamp),
        "x-switchyard-delivery": call.delivery,
      };
      if (!call.unsigned) {
        headers["x-switchyard-signature"] = signHook(
          call.secret ?? HOOK_SECRET,
          timestamp,
          call.delivery,
          bytes,
        );
      }
      const response = await fetch(url(name), {
        method: "POST",
        headers,
        body: bytes,
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    close: () => ops.close(),
  };
}
