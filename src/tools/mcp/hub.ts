import packageJson from "../../../package.json" with { type: "json" };
import type { Capabilities } from "../../core/availability/capabilities.ts";
import type { McpConfig } from "../../core/config/mcp-section.ts";
import { silentLogger } from "../../core/logger.ts";
import { canonicalJson } from "../../core/tools/canonical-json.ts";
import { compareIds, type ToolRegistry } from "../../core/tools/registry.ts";
import {
  type ConnectionDeps,
  McpConnection,
  type McpLogger,
  type McpTimers,
  systemTimers,
} from "./connection.ts";
import { capabilityOf, type McpServerState } from "./server-state.ts";
import { mcpFamily } from "./tool-ids.ts";

export interface McpHubOptions {
  /** Each server's tools are registered here as the family `mcp:<server>`. */
  readonly registry: ToolRegistry;
  /** Where `${NAME}` in env:, headers: and url: comes from; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A relative `cwd:` is resolved against it: the config file's folder. */
  readonly baseDir?: string;
  readonly logger?: McpLogger;
  /** Told every value filled in from the environment (tokens), so the logger can redact it. */
  readonly onSecret?: (value: string) => void;
  /** The reconnect clock; tests hand in their own. */
  readonly timers?: McpTimers;
  /** Jitter for the reconnect backoff, in [0, 1). */
  readonly random?: () => number;
}

export type McpHubListener = (server: string, state: McpServerState) => void;

/**
 * The MCP servers of this process, each a tool family in the registry and a
 * capability `mcp:<server>`.
 *
 * @example
 * const hub = new McpHub(config.mcp, { registry, env: process.env, logger });
 * await hub.start(); // every server connected or failed once; none waits on another
 * const app = await startSwitchyard({ registry, capabilities: () => hub.capabilities(), ... });
 * // on shutdown:
 * await hub.close();
 *
 * A server that is down keeps its last known tools registered and its
 * capability absent with the reason ("MCP server github is not connected:
 * exited with code 1 (retrying, attempt 2 next)"), so `/tools` shows why.
 * When its tool list changes the family is swapped in the registry; turns
 * already running keep the tools they froze, the next turn sees the new ones.
 */
export class McpHub {
  readonly #listeners = new Set<McpHubListener>();
  readonly #registry: ToolRegistry;
  #deps: ConnectionDeps;
  #connections: ReadonlyMap<string, McpConnection>;
  #capabilities: Capabilities | undefined;
  #started: Promise<void> | undefined;

  constructor(config: McpConfig, options: McpHubOptions) {
    const { servers, ...settings } = config;
    const logger: McpLogger = options.logger ?? silentLogger;
    this.#registry = options.registry;
    this.#deps = {
      registry: options.registry,
      settings,
      environment: {
        env: options.env ?? process.env,
        ...(options.baseDir !== undefined ? { baseDir: options.baseDir } : {}),
        ...(options.onSecret ? { onSecret: options.onSecret } : {}),
        onStderr: (server, line) => logger.info?.(`MCP server ${server}: ${line}`, { server }),
      },
      timers: options.timers ?? systemTimers,
      random: options.random ?? Math.random,
      logger,
      clientInfo: { name: "switchyard", version: packageJson.version },
      changed: (server, state) => this.#changed(server, state),
    };
    this.#connections = new Map(
      sortedEntries(servers).map(([name, server]) => [
        name,
        new McpConnection(name, server, this.#deps),
      ]),
    );
  }

  /**
   * Connects every server at once and resolves when each has connected or
   * failed its first attempt. A failed server keeps retrying in the
   * background; it never delays the others.
   */
  start(): Promise<void> {
    this.#started ??= Promise.all(
      [...this.#connections.values()].map((connection) => connection.start()),
    ).then(() => {});
    return this.#started;
  }

  /** `mcp:<server>` for every configured server: available while connected, else absent with the reason. */
  capabilities(): Capabilities {
    let capabilities = this.#capabilities;
    if (capabilities === undefined) {
      const entries = [...this.#connections].map(([name, connection]) => [
        mcpFamily(name),
        capabilityOf(name, connection.state),
      ]);
      capabilities = Object.freeze(Object.fromEntries(entries)) as Capabilities;
      this.#capabilities = capabilities;
    }
    return capabilities;
  }

  /** The configured servers, sorted. */
  servers(): string[] {
    return [...this.#connections.keys()];
  }

  /** Where a server stands, or undefined for a server that is not configured. */
  state(server: string): McpServerState | undefined {
    return this.#connections.get(server)?.state;
  }

  /** Called on every state change (connecting, connected, waiting, ...); returns the unsubscribe. */
  onChange(listener: McpHubListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Applies a re-read config. A server whose entry (and the shared settings)
   * did not change keeps its connection; a changed one is restarted, its old
   * tools registered until the new connection lists its own; a removed one is
   * stopped and its tools unregistered. Resolves when the started servers
   * have connected or failed once.
   */
  async update(config: McpConfig): Promise<void> {
    const { servers, ...settings } = config;
    const settingsChanged = canonicalJson(settings) !== canonicalJson(this.#deps.settings);
    if (settingsChanged) this.#deps = { ...this.#deps, settings };
    const kept = new Map<string, McpConnection>();
    const stopping: Promise<void>[] = [];
    for (const [name, connection] of this.#connections) {
      const wanted = Object.hasOwn(servers, name) ? servers[name] : undefined;
      const same =
        wanted !== undefined && canonicalJson(wanted) === canonicalJson(connection.config);
      if (same && !settingsChanged) {
        kept.set(name, connection);
        continue;
      }
      stopping.push(connection.close());
      if (wanted === undefined) this.#registry.replaceFamily(mcpFamily(name), []);
    }
    const starting: McpConnection[] = [];
    this.#connections = new Map(
      sortedEntries(servers).map(([name, server]) => {
        const existing = kept.get(name);
        if (existing) return [name, existing];
        const connection = new McpConnection(name, server, this.#deps);
        starting.push(connection);
        return [name, connection];
      }),
    );
    this.#capabilities = undefined;
    await Promise.all(stopping);
    if (this.#started) await Promise.all(starting.map((connection) => connection.start()));
  }

  /**
   * Stops every server: command servers get their stdin closed, then SIGTERM,
   * then SIGKILL if they linger. Their tools stay registered and absent.
   */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
  }

  #changed(server: string, state: McpServerState): void {
    this.#capabilities = undefined;
    for (const listener of this.#listeners) listener(server, state);
  }
}

function sortedEntries<T>(record: Readonly<Record<string, T>>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => compareIds(a, b));
}
