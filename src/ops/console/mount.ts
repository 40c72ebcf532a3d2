import type { Redis } from "ioredis";
import type { TurnResult } from "../../core/agent/loop.ts";
import type { Capabilities } from "../../core/availability/capabilities.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import type { ToolRegistry } from "../../core/tools/registry.ts";
import type { OpsServer } from "../../observability/http.ts";
import type { ConversationQueue } from "../../queue/queue.ts";
import { ActivityStore, type TurnActivity } from "../../store/activity-store.ts";
import { ScheduleStore } from "../../store/schedule-store.ts";
import { mcpServerReports } from "../../tools/mcp/server-report.ts";
import { reminderQueue } from "../../tools/reminders/schedule.ts";
import type { ContractSources } from "../../turn/contract.ts";
import { CONSOLE_PATH } from "./path.ts";
import { UsageReader } from "./usage.ts";

/** The variable holding the console's token; without it the console stays off. */
export const CONSOLE_TOKEN_VARIABLE = "SWITCHYARD_CONSOLE_TOKEN";

/** A finished turn as the console's activity list keeps it (no text). */
export function turnActivity(info: {
  result: TurnResult | undefined;
  outcome: string;
  ms: number;
  turnId?: string;
}): TurnActivity {
  const usage = info.result?.usage;
  return {
    ...(info.turnId ? { turnId: info.turnId } : {}),
    at: Date.now(),
    outcome: info.outcome,
    ms: info.ms,
    steps: info.result?.steps ?? 0,
    promptTokens: usage?.promptTokens ?? 0,
    cachedTokens: usage?.cachedTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
  };
}

export interface MountConsoleOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly redis: Redis;
  readonly prefix: string;
  readonly sources: ContractSources;
  readonly queue: ConversationQueue;
  /** The process's tools and MCP servers (the Host). */
  readonly host: {
    readonly mcp: { servers(): readonly string[] };
    readonly registry: ToolRegistry;
    capabilities(): Capabilities;
  };
  readonly queueMode: (address: ConversationAddress) => string;
  readonly logger: {
    warn(fields: object, message: string): void;
    info(fields: object, message: string): void;
  };
}

/**
 * Mounts the console on the ops server, when the config enables it and the
 * token is set; says why not otherwise. Resolves to whether it is served.
 * Hono and Bull Board are imported here, for a console that is served, and
 * never by a process without one.
 */
export async function mountConsole(ops: OpsServer, options: MountConsoleOptions): Promise<boolean> {
  const token = options.env[CONSOLE_TOKEN_VARIABLE]?.trim() ?? "";
  if (token.length < 16) {
    options.logger.warn(
      { variable: CONSOLE_TOKEN_VARIABLE },
      `console not started: console.enabled is true, but ${CONSOLE_TOKEN_VARIABLE} is ${token ? "shorter than 16 characters" : "not set"}. Set it to a long random string (e.g. openssl rand -hex 24).`,
    );
    return false;
  }
  const { host } = options;
  const { consoleHandler } = await import("./console-app.ts");
  ops.mount(
    CONSOLE_PATH,
    consoleHandler({
      token,
      sources: options.sources,
      activity: new ActivityStore(options.redis, options.sources.store.keys),
      usage: new UsageReader(options.redis, options.sources.store, options.sources.config),
      queueMode: options.queueMode,
      mcp: () => mcpServerReports(host.mcp.servers(), host.registry, host.capabilities()),
      queues: {
        conversation: options.queue.queues,
        reminders: reminderQueue(options.redis, options.prefix),
      },
      schedules: new ScheduleStore(options.redis, options.sources.store.keys),
    }),
  );
  options.logger.info(
    { path: CONSOLE_PATH, host: ops.host, port: ops.port },
    consoleServedLine(ops.host, ops.port),
  );
  return true;
}

/**
 * The start log's line for the console: where to open it, and, when it
 * listens on this machine only, how to open it from others, so a console
 * that cannot be reached from a laptop explains itself.
 */
export function consoleServedLine(host: string, port: number): string {
  const everywhere = host === "::" || host === "0.0.0.0";
  const shown = everywhere ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const url = `http://${shown}:${port}${CONSOLE_PATH}`;
  if (everywhere) return `console served on ${url}, and on every interface of this machine`;
  if (isLoopback(host)) {
    return `console served on ${url} (this machine only: set console.host or SWITCHYARD_METRICS_HOST to 0.0.0.0 to reach it from other machines)`;
  }
  return `console served on ${url}`;
}

function isLoopback(host: string): boolean {
  return host === "::1" || host === "localhost" || host.startsWith("127.");
}
