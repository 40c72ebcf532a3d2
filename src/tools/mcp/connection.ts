import { setImmediate as nextTurn } from "node:timers/promises";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { McpConfig, McpServerConfig } from "../../core/config/mcp-section.ts";
import type { LoggerPort } from "../../core/logger.ts";
import type { ToolRegistry } from "../../core/tools/registry.ts";
import type { ToolOutput } from "../../core/tools/tool.ts";
import { backoffDelay } from "./backoff.ts";
import type * as ClientSdk from "./client-sdk.ts";
import { McpCallError } from "./errors.ts";
import { mcpFamilyTools } from "./family.ts";
import { listAllTools } from "./list-tools.ts";
import { detailOf, type McpServerState } from "./server-state.ts";
import type { OpenedTransport, TransportEnvironment } from "./transport.ts";

/** Where the hub says what happened; `info` is optional so a plain LoggerPort fits. */
export interface McpLogger extends LoggerPort {
  info?(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** The clock the reconnect backoff waits on; handed in so tests can drive it. */
export interface McpTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: McpTimers = {
  // Unref'd: a pending reconnect must not keep a finished CLI command alive.
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface ConnectionDeps {
  readonly registry: ToolRegistry;
  readonly settings: Omit<McpConfig, "servers">;
  readonly environment: TransportEnvironment;
  readonly timers: McpTimers;
  readonly random: () => number;
  readonly logger: McpLogger;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly changed: (server: string, state: McpServerState) => void;
}

/**
 * One configured MCP server, for the life of the process: connect, list its
 * tools into the registry as the family `mcp:<server>`, follow
 * `list_changed`, and reconnect with backoff when it goes away. The family
 * stays registered while the server is down, so `/tools` shows its tools as
 * unavailable with the reason instead of forgetting them.
 */
export class McpConnection {
  #state: McpServerState = { kind: "connecting", attempt: 1 };
  #client: Client | undefined;
  /** The SDK, once the first attempt imported it (client-sdk.ts). */
  #sdk: typeof ClientSdk | undefined;
  #opened: OpenedTransport | undefined;
  #attempt = 0;
  #lastError: string | undefined;
  #timer: unknown;
  #closed = false;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;

  constructor(
    readonly server: string,
    readonly config: McpServerConfig,
    private readonly deps: ConnectionDeps,
  ) {}

  get state(): McpServerState {
    return this.#state;
  }

  /** The first attempt; resolves when it connected or failed (retries go on in the background). */
  start(): Promise<void> {
    return this.#connect();
  }

  /** Runs a tool by its MCP name on whatever connection is current. */
  async call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ToolOutput> {
    const client = this.#client;
    const sdk = this.#sdk;
    const state = this.#state;
    if (client === undefined || sdk === undefined || state.kind !== "connected") {
      const detail = state.kind === "connected" ? "reconnecting" : detailOf(state);
      throw new McpCallError(
        this.server,
        name,
        `the MCP server ${this.server} is not connected: ${detail}. Try again later or do without it`,
      );
    }
    const opened = this.#opened;
    return sdk.callMcpTool(client, name, args, {
      server: this.server,
      signal,
      timeoutMs: this.config.callTimeoutMs ?? this.deps.settings.callTimeoutMs,
      lostReason: () => opened?.exitReason(),
    });
  }

  /** Stops retrying and ends the connection; a command server's process is terminated. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) this.deps.timers.clearTimeout(this.#timer);
    this.#timer = undefined;
    const client = this.#client;
    this.#client = undefined;
    this.#setState({ kind: "closed" });
    await client?.close().catch(() => {});
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    this.#timer = undefined;
    this.#attempt++;
    this.#setState({
      kind: "connecting",
      attempt: this.#attempt,
      ...(this.#lastError !== undefined ? { lastError: this.#lastError } : {}),
    });
    let sdk: typeof ClientSdk;
    try {
      sdk = await loadSdk();
    } catch (error) {
      // An install without the SDK stays without it: retrying would only repeat it.
      this.#lastError = `the MCP SDK (@modelcontextprotocol/sdk) could not be loaded: ${(error as Error)?.message ?? String(error)}. Reinstall the bot's dependencies (npm install)`;
      this.deps.logger.warn(`MCP server ${this.server} cannot start: ${this.#lastError}`, {
        server: this.server,
      });
      this.#setState({ kind: "failed", lastError: this.#lastError });
      return;
    }
    if (this.#closed) return;
    this.#sdk = sdk;
    const { errorLine } = sdk;
    let opened: OpenedTransport;
    try {
      opened = sdk.openTransport(this.server, this.config, this.deps.environment);
    } catch (error) {
      // A variable that is not set, a URL that is not one: nothing changes the environment of a
      // running process, so retrying would only repeat it.
      this.#lastError = errorLine(error);
      this.deps.logger.warn(`MCP server ${this.server} cannot start: ${this.#lastError}`, {
        server: this.server,
      });
      this.#setState({ kind: "failed", lastError: this.#lastError });
      return;
    }
    const client = new sdk.Client(this.deps.clientInfo, { capabilities: {} });
    this.#client = client;
    this.#opened = opened;
    let changedWhileListing = false;
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      if (this.#client !== client) return;
      if (this.#state.kind === "connected") void this.#refresh(client, errorLine);
      // The first list may already be on its way back without the change.
      else changedWhileListing = true;
    });
    client.onclose = () => void this.#lost(client, opened);
    client.onerror = () => void this.#check(client, opened, errorLine);
    const timeout = this.deps.settings.connectTimeoutMs;
    try {
      await client.connect(opened.transport, { timeout });
      const listed = await listAllTools(client, this.server, timeout);
      if (this.#client !== client) return;
      const count = this.#install(client, listed);
      this.#attempt = 0;
      this.#lastError = undefined;
      this.#connected(count);
      this.deps.logger.info?.(`MCP server ${this.server} connected with ${count} tools`, {
        server: this.server,
        tools: count,
      });
      if (changedWhileListing) void this.#refresh(client, errorLine);
    } catch (error) {
      if (this.#client !== client) return;
      this.#client = undefined;
      // A child's exit and its last stderr line arrive a moment after the closed connection.
      await nextTurn();
      const reason = opened.exitReason() ?? errorLine(error);
      // A server that stays broken fails the same way every minute: warn when the story changes.
      const log = reason === this.#lastError ? this.deps.logger.info : this.deps.logger.warn;
      log?.call(
        this.deps.logger,
        `MCP server ${this.server} did not connect (attempt ${this.#attempt}): ${reason}`,
        { server: this.server, attempt: this.#attempt },
      );
      await this.#drop(client, reason);
    }
  }

  /** Lists the tools into the registry; returns how many were registered. */
  #install(client: Client, listed: Parameters<typeof mcpFamilyTools>[0]): number {
    const { tools, skipped, unknownAsk } = mcpFamilyTools(
      listed,
      {
        server: this.server,
        defer: this.config.defer,
        ask: this.config.ask,
        descriptionMax: this.deps.settings.descriptionMax,
        // A little past the call's own timeout, so the server's timeout (which cancels the call) answers first.
        timeoutMs: (this.config.callTimeoutMs ?? this.deps.settings.callTimeoutMs) + 1_000,
      },
      (name, args, signal) => this.call(name, args, signal),
    );
    for (const { name, reason } of skipped) {
      this.deps.logger.info?.(`MCP tool ${name} of ${this.server} is left out: ${reason}`, {
        server: this.server,
        tool: name,
      });
    }
    if (unknownAsk.length > 0) {
      this.deps.logger.warn(
        `MCP server ${this.server} lists no tool named ${unknownAsk.join(", ")} (under ask: in its config); check the names against switchyard tools`,
        { server: this.server, tools: unknownAsk },
      );
    }
    if (this.#client === client) this.deps.registry.replaceFamily(`mcp:${this.server}`, tools);
    return tools.length;
  }

  /** `notifications/tools/list_changed`: re-list, one refresh at a time, the last one winning. */
  #refresh(client: Client, errorLine: (error: unknown) => string): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        try {
          const listed = await listAllTools(
            client,
            this.server,
            this.deps.settings.connectTimeoutMs,
          );
          if (this.#client !== client) return;
          this.#connected(this.#install(client, listed));
        } catch (error) {
          if (this.#client !== client) return;
          this.deps.logger.warn(
            `MCP server ${this.server} changed its tools, but the new list could not be read or registered; keeping the previous one: ${errorLine(error)}`,
            { server: this.server },
          );
        }
      } while (this.#refreshAgain && this.#client === client);
    })().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** The connection closed: the process exited, or the transport gave up. */
  async #lost(client: Client, opened: OpenedTransport): Promise<void> {
    if (this.#client !== client || this.#state.kind !== "connected") return;
    this.#client = undefined;
    await nextTurn();
    const reason = opened.exitReason() ?? "the connection closed";
    this.deps.logger.warn(`MCP server ${this.server} disconnected: ${reason}`, {
      server: this.server,
    });
    await this.#drop(client, reason);
  }

  /**
   * A transport error. Over HTTP nothing is connected between requests, so
   * an error is the only sign a server went away or forgot the session: a
   * ping decides whether to reconnect.
   */
  async #check(
    client: Client,
    opened: OpenedTransport,
    errorLine: (error: unknown) => string,
  ): Promise<void> {
    if (this.#client !== client || this.#state.kind !== "connected") return;
    try {
      await client.ping({ timeout: Math.min(this.deps.settings.connectTimeoutMs, 10_000) });
    } catch (error) {
      if (this.#client !== client) return;
      this.#client = undefined;
      const reason = opened.exitReason() ?? errorLine(error);
      this.deps.logger.warn(`MCP server ${this.server} stopped answering: ${reason}`, {
        server: this.server,
      });
      await this.#drop(client, reason);
    }
  }

  /** Ends a connection that is no longer current and schedules the next attempt. */
  async #drop(client: Client, reason: string): Promise<void> {
    this.#lastError = reason;
    if (!this.#closed)
      this.#setState({ kind: "waiting", attempt: this.#attempt + 1, lastError: reason });
    await client.close().catch(() => {});
    if (this.#closed) return;
    const { reconnect } = this.deps.settings;
    const delay = backoffDelay(Math.max(this.#attempt, 1), reconnect, this.deps.random);
    this.#timer = this.deps.timers.setTimeout(() => void this.#connect(), delay);
  }

  #connected(tools: number): void {
    const pid = this.#opened?.pid();
    this.#setState({ kind: "connected", tools, ...(pid !== undefined ? { pid } : {}) });
  }

  #setState(state: McpServerState): void {
    this.#state = state;
    this.deps.changed(this.server, state);
  }
}

/** The SDK and what is built on it, imported once, at the first connection of any server. */
function loadSdk(): Promise<typeof ClientSdk> {
  return import("./client-sdk.ts");
}
