import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { modelVision, type VisionDeclarations } from "../core/attachments/model-vision.ts";
import type { Capabilities } from "../core/availability/capabilities.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import type { LoggerPort } from "../core/logger.ts";
import { DuplicateToolError } from "../core/tools/errors.ts";
import { ToolRegistry } from "../core/tools/registry.ts";
import type { AnyTool } from "../core/tools/tool.ts";
import type { ConversationDirectory } from "../ports/directory.ts";
import type { Outbound } from "../ports/outbound.ts";
import { Schedules, scheduleQueue } from "../queue/schedules.ts";
import { KeyScheme } from "../store/keys.ts";
import { ioredis } from "../store/redis/ioredis.ts";
import { ScheduleStore } from "../store/schedule-store.ts";
import {
  READ_ATTACHMENT_CAPABILITY,
  readAttachmentCapability,
  TRANSCRIPTION_CAPABILITY,
  transcriptionCapability,
  VISION_CAPABILITY,
  visionDeclarations,
} from "../tools/attachments/index.ts";
import { ALL_BUILTINS, type BuiltinTools } from "../tools/builtins.ts";
import { McpHub } from "../tools/mcp/index.ts";
import { type Reminder, reminderQueue } from "../tools/reminders/index.ts";
import type { MessagingPorts } from "../tools/send-message.ts";
import { webCapabilities } from "../tools/web/index.ts";

export interface HostOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The config as read at start; MCP servers follow later edits through {@link Host.reload}. */
  readonly config: SwitchyardConfig;
  /**
   * The Redis that memory and reminders use, and the key prefix. Without it
   * (`switchyard tools`, which only lists) those tools are defined but never
   * connect.
   */
  readonly redis?: {
    readonly url?: string;
    readonly prefix: string;
    /** Builds the connection instead of `url` (a cluster or Sentinel); it must connect lazily. */
    readonly connect?: () => Redis;
  };
  /** The config file's folder: a relative MCP `cwd:` is read from there. */
  readonly baseDir?: string;
  readonly logger?: LoggerPort & {
    info?(message: string, fields?: Readonly<Record<string, unknown>>): void;
  };
  /** Told every secret filled in from the environment, so logs can redact it. */
  readonly onSecret?: (value: string) => void;
  /** The built-in tools to include; all of them by default. */
  readonly builtins?: readonly BuiltinTools[];
  /** The bot's own tools, after the built-ins in the registry. */
  readonly tools?: readonly AnyTool[];
  /** False when the bot's own model is not configured: `vision` is then off for that reason. Default true. */
  readonly modelConfigured?: boolean;
}

/**
 * The tools and capabilities this process runs with: the built-ins
 * (`current_time`, the `skill` tool, web, memory, reminders, `send_message`,
 * or those named in `builtins`), the bot's own tools, and every configured
 * MCP server as a family. Channels register their
 * outbound and directory with {@link Host.messaging} once they exist, which
 * is when `send_message` can reach them. `createBot` builds one; build it
 * yourself only when you wire `startSwitchyard` by hand.
 *
 * @example
 * const host = new Host({ env: process.env, config, tools: [weather], builtins: [builtins.currentTime] });
 * await host.start(); // the MCP servers of config.mcp, each connected or failed once
 * const app = await startSwitchyard({ registry: host.registry, capabilities: host.capabilities, provider, redisUrl });
 */
export class Host {
  readonly registry: ToolRegistry;
  readonly mcp: McpHub;
  readonly messaging = new MessagingRoutes();
  readonly #static: Capabilities;
  #vision: VisionDeclarations;
  readonly #redis: Redis;
  #queue: Queue<Reminder> | undefined;
  #schedules: Schedules | undefined;

  constructor(options: HostOptions) {
    const { config, env } = options;
    const chosen = options.builtins ?? ALL_BUILTINS;
    // Before anything connects: a start that fails here leaves nothing to close.
    refuseBuiltinIds(options.tools ?? [], chosen);
    const prefix = options.redis?.prefix ?? "sy";
    // Nothing connects until a memory or reminder tool runs: listing tools needs no Redis.
    this.#redis =
      options.redis?.connect?.() ??
      new (ioredis().Redis)(options.redis?.url ?? "redis://127.0.0.1:6379", {
        lazyConnect: true,
        maxRetriesPerRequest: null,
      });
    const context = {
      config,
      env,
      redis: this.#redis,
      prefix,
      reminderQueue: () => {
        this.#queue ??= reminderQueue(this.#redis, prefix);
        return this.#queue;
      },
      messaging: this.messaging,
      schedules: () => {
        this.#schedules ??= new Schedules(
          scheduleQueue(this.#redis, prefix),
          new ScheduleStore(this.#redis, new KeyScheme(prefix)),
        );
        return this.#schedules;
      },
    };
    this.registry = new ToolRegistry([
      ...chosen.flatMap((builtin) => builtin.build(context)),
      ...(options.tools ?? []),
    ]);
    this.#static = {
      ...webCapabilities(config.web, env),
      [TRANSCRIPTION_CAPABILITY]: transcriptionCapability(config.transcription, env),
      [READ_ATTACHMENT_CAPABILITY]: readAttachmentCapability(config.attachments),
    };
    this.#vision = {
      ...visionDeclarations(config.model, env, config.models),
      ...(options.modelConfigured === false ? { unconfigured: true } : {}),
    };
    this.mcp = new McpHub(config.mcp, {
      registry: this.registry,
      env,
      ...(options.baseDir !== undefined ? { baseDir: options.baseDir } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.onSecret ? { onSecret: options.onSecret } : {}),
    });
  }

  /** Connects the MCP servers; resolves when each has connected or failed once. */
  async start(): Promise<void> {
    await this.mcp.start();
  }

  /**
   * What the host has now for a turn on `model` (a name from the config's
   * `models:`; undefined: the bot's own model): a web search provider,
   * transcription, each MCP server's connection, and `vision` as that
   * model was declared.
   */
  capabilities = (model?: string): Capabilities => ({
    ...this.#static,
    [VISION_CAPABILITY]: modelVision(model, this.#vision),
    ...this.mcp.capabilities(),
  });

  /**
   * A config edit: MCP servers added, changed or removed, and which models
   * take images (`model.vision`, `models:`), apply at the next turn.
   */
  async reload(config: SwitchyardConfig): Promise<void> {
    this.#vision = { ...this.#vision, declared: config.model.vision, models: config.models };
    await this.mcp.update(config.mcp);
  }

  async close(): Promise<void> {
    await this.mcp.close();
    await this.#queue?.close();
    await this.#schedules?.queue.close();
    this.#redis.disconnect();
  }
}

/**
 * A bot's own tool that takes a built-in's id is refused with the fixes a
 * `createBot` user has: the registry's own advice (`registry.unregister`)
 * is out of their reach at this point.
 */
function refuseBuiltinIds(tools: readonly AnyTool[], builtins: readonly BuiltinTools[]): void {
  for (const tool of tools) {
    const builtin = builtins.find((b) => b.ids.includes(tool.id));
    if (builtin === undefined) continue;
    throw new DuplicateToolError(
      tool.id,
      `"${tool.id}" is a built-in tool (builtins.${builtin.name}). Rename your tool, or leave that built-in out with createBot's builtins: option, e.g. builtins: ALL_BUILTINS.filter((b) => b !== builtins.${builtin.name}).`,
    );
  }
}

/** The outbound and directory of each platform this process has, as `send_message` finds them. */
export class MessagingRoutes implements MessagingPorts {
  readonly #outbounds = new Map<string, Outbound>();
  readonly #directories = new Map<string, ConversationDirectory>();

  add(platform: string, outbound: Outbound, directory?: ConversationDirectory): void {
    this.#outbounds.set(platform, outbound);
    if (directory) this.#directories.set(platform, directory);
  }

  outbound(platform: string): Outbound | undefined {
    return this.#outbounds.get(platform);
  }

  directory(platform: string): ConversationDirectory | undefined {
    return this.#directories.get(platform);
  }
}
