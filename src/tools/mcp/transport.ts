import type { ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { fillEnvTemplate } from "../../core/config/env-template.ts";
import type {
  McpHttpServerConfig,
  McpServerConfig,
  McpStdioServerConfig,
} from "../../core/config/mcp-section.ts";
import { McpServerConfigError } from "./errors.ts";

/** A transport to one server, and what it can tell about why it ended. */
export interface OpenedTransport {
  readonly transport: Transport;
  /** Why a local server is gone (`exited with code 1: <its last stderr line>`), once it is. */
  exitReason(): string | undefined;
  /** The child process of a command server, while it runs. */
  pid(): number | undefined;
}

export interface TransportEnvironment {
  /** Where `${NAME}` values come from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** A relative `cwd:` is resolved against it (the config file's folder). */
  readonly baseDir?: string;
  /** Told every value filled from the environment, so logs can redact it. */
  readonly onSecret?: (value: string) => void;
  /** Each line a command server writes to stderr (its log), for the bot's own log. */
  readonly onStderr?: (server: string, line: string) => void;
}

/**
 * Builds the transport for a configured server. Throws `MissingEnvError`
 * when a `${NAME}` is not set, and {@link McpServerConfigError} when a URL
 * made from variables is not a URL: both are fixed in the environment, not
 * by retrying.
 */
export function openTransport(
  server: string,
  config: McpServerConfig,
  environment: TransportEnvironment,
): OpenedTransport {
  return config.transport === "stdio"
    ? openStdio(server, config, environment)
    : openHttp(server, config, environment);
}

function openStdio(
  server: string,
  config: McpStdioServerConfig,
  environment: TransportEnvironment,
): OpenedTransport {
  const env = fillAll(config.env, environment, (name) => `env ${name} of MCP server ${server}`);
  const onStderr = environment.onStderr;
  const transport = new WatchedStdioTransport(onStderr && ((line) => onStderr(server, line)), {
    command: config.command,
    args: [...config.args],
    env,
    // Piped, not inherited: its log lines reach our logger tagged with the server, and the last explains an exit.
    stderr: "pipe",
    ...(config.cwd !== undefined
      ? { cwd: environment.baseDir ? resolve(environment.baseDir, config.cwd) : config.cwd }
      : {}),
  });
  return {
    transport,
    exitReason: () => transport.exitReason(),
    pid: () => transport.pid ?? undefined,
  };
}

function openHttp(
  server: string,
  config: McpHttpServerConfig,
  environment: TransportEnvironment,
): OpenedTransport {
  const text = fillEnvTemplate(config.url, environment.env, `url of MCP server ${server}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new McpServerConfigError(
      `The url of MCP server ${server} is ${JSON.stringify(config.url)}, which with the environment filled in is not a URL. Check the variables it uses.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new McpServerConfigError(
      `The url of MCP server ${server} must be http(s), not ${url.protocol}. Write the server's streamable HTTP endpoint.`,
    );
  }
  const headers = fillAll(
    config.headers,
    environment,
    (name) => `header ${name} of MCP server ${server}`,
  );
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  return { transport, exitReason: () => undefined, pid: () => undefined };
}

function fillAll(
  values: Readonly<Record<string, string>>,
  environment: TransportEnvironment,
  where: (name: string) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    const filled = fillEnvTemplate(value, environment.env, where(name));
    if (filled !== value) environment.onSecret?.(filled);
    Object.defineProperty(out, name, { value: filled, enumerable: true, writable: true });
  }
  return out;
}

/** The most of a server's stderr kept to explain its exit. */
const STDERR_TAIL = 4_096;
const REASON_LINE = 300;

/**
 * The SDK's stdio transport, remembering how the child ended and the end of
 * what it wrote to stderr. The SDK reports only that the connection closed;
 * a person reading "/tools" wants "exited with code 1: Error: None of the
 * specified directories are accessible".
 */
class WatchedStdioTransport extends StdioClientTransport {
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #stderr = "";
  #partial = "";

  constructor(
    onLine: ((line: string) => void) | undefined,
    ...params: ConstructorParameters<typeof StdioClientTransport>
  ) {
    super(...params);
    // Read it always: an unread pipe fills up and blocks the server on its next log line.
    this.stderr?.on("data", (chunk: Buffer | string) => {
      const text = chunk.toString();
      this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL);
      if (onLine === undefined) return;
      const lines = (this.#partial + text).split(/\r?\n/);
      this.#partial = (lines.pop() ?? "").slice(-STDERR_TAIL);
      for (const line of lines) if (line.trim() !== "") onLine(line.slice(0, STDERR_TAIL));
    });
  }

  override async start(): Promise<void> {
    await super.start();
    // The SDK keeps the child private; its exit code and signal are only on the child itself.
    const child = (this as unknown as { _process?: ChildProcess })._process;
    child?.once("exit", (code, signal) => {
      this.#exit = { code, signal };
    });
  }

  exitReason(): string | undefined {
    if (this.#exit === undefined) return undefined;
    const { code, signal } = this.#exit;
    // Killed from outside, the server's last words are whatever it logged before; they explain nothing.
    if (signal !== null) return `was killed by ${signal}`;
    const how = `exited with code ${code}`;
    const line = this.#stderr
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== "")
      .at(-1);
    return line === undefined ? how : `${how}: ${line.slice(0, REASON_LINE)}`;
  }
}
