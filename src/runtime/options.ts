import type { Provider } from "../core/agent/provider.ts";
import type { ScopeLayer } from "../core/availability/scopes.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import type { Skill } from "../core/skills/index.ts";
import type { AnyTool } from "../core/tools/tool.ts";
import type { Channel } from "../ingress/channel.ts";
import type { Logger } from "../observability/logger.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { BuiltinTools } from "../tools/builtins.ts";
import type { SwitchyardOptions } from "./app.ts";
import type { QueueEnv } from "./queue-settings.ts";

/** What a process of the bot does: everything, only the channels, or only the turns. */
export type BotRole = "all" | "ingress" | "worker";

export const BOT_ROLES: readonly BotRole[] = ["all", "ingress", "worker"];

/**
 * Where the config comes from when it can change while the bot runs: the
 * file `switchyard start` watches is one. `current` is read on every turn.
 */
export interface ConfigSource {
  readonly current: SwitchyardConfig;
  /** The file, when there is one: relative paths in it (skills, plugins, personas, MCP cwd) start at its folder. */
  readonly file?: string | undefined;
  /** Calls `listener` with each new config that applies. */
  watch?(listener: (config: SwitchyardConfig) => void): void;
  close?(): void;
}

/** The turn worker's numbers a bot may set, each passed to the pipeline as given. */
const TURN_TUNING = [
  "concurrency",
  "maxEventLoopDelayMs",
  "maxHeapMb",
  "leaseMs",
  "lockDurationMs",
  "stalledIntervalMs",
  "maxSteps",
  "toolTimeoutMs",
  "historyMaxTokens",
  "streamEditMs",
] as const;

/** How many turns run at once, how long they may take, and the other numbers of the turn worker. */
export type TurnTuning = Pick<SwitchyardOptions, (typeof TURN_TUNING)[number]>;

/** The numbers the options set, and only those: the pipeline has its own defaults. */
export function turnTuningOf(options: TurnTuning): TurnTuning {
  const tuning: { -readonly [K in keyof TurnTuning]: TurnTuning[K] } = {};
  for (const key of TURN_TUNING) if (options[key] !== undefined) tuning[key] = options[key];
  return tuning;
}

export interface BotOptions extends TurnTuning {
  /** Your tools, added beside the built-ins. */
  readonly tools?: readonly AnyTool[];
  /** The built-in tools to include (see `builtins`); every one by default, `[]` for none. */
  readonly builtins?: readonly BuiltinTools[];
  /** Skills from code (`defineSkill`), beside the built-in skills and the config's skill folders. */
  readonly skills?: readonly Skill[];
  /** Who the bot is: the system prompt's first block. The config's `agent.persona` wins over it. */
  readonly persona?: string;
  /**
   * The config: a file path (read now, watched while the bot runs), a config
   * from `parseConfig`, or a {@link ConfigSource}. None: the defaults.
   */
  readonly config?: string | SwitchyardConfig | ConfigSource;
  /**
   * The platforms the bot is on. Default: the console (stdin and stdout)
   * unless a plugin brings a channel, and none for a worker.
   */
  readonly channels?: readonly Channel[];
  /** Modules of tools, skills and channels to load (files from the working directory, or packages), after the config's `plugins:`. */
  readonly plugins?: readonly string[];
  /** `all` (default): channels and turns here; `ingress`: channels only; `worker`: turns only. */
  readonly role?: BotRole;
  /** The model. Default: `OPENAI_API_KEY`, `OPENAI_BASE_URL` and `SWITCHYARD_MODEL` from `env`. */
  readonly provider?: Provider;
  /**
   * A Redis URL. Default: the environment and the config's `redis:` section,
   * else 127.0.0.1:6379, else a `redis-server` started under `./.switchyard`.
   */
  readonly redis?: string;
  /** Every Redis key starts with it; default `SWITCHYARD_PREFIX`, else "sy". */
  readonly prefix?: string;
  /** Runtime tool decisions, the deepest scope (`--tools`); see `parseRuntimeSpec`. */
  readonly runtime?: ScopeLayer;
  /** The queue settings the environment gave (`SWITCHYARD_QUEUE_*`), over the config's `queue:`. */
  readonly queue?: QueueEnv;
  /** Read for credentials (web search keys, MCP servers, the default model). Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A pino logger (`createLogger`); default JSON lines on stderr at `LOG_LEVEL`. */
  readonly logger?: Logger;
  /** The Prometheus metrics to count into; a fresh registry by default. */
  readonly metrics?: Metrics;
  /** Serve /metrics, /healthz and /readyz on this port; unset or 0: not served. */
  readonly metricsPort?: number;
  /**
   * The address that server listens on (`SWITCHYARD_METRICS_HOST`); unset:
   * the config's `console.host`, else 127.0.0.1 when the console is enabled,
   * else every interface (probes and Prometheus scrape a pod's IP).
   */
  readonly metricsHost?: string;
  /**
   * Log an error a library throws asynchronously and count it, instead of
   * letting it end the process (default true). Turn it off if your
   * program installs its own `uncaughtException` handler.
   */
  readonly processGuard?: boolean;
}
