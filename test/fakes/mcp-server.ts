/**
 * A small MCP server built on the SDK's own `Server`, for what the reference
 * servers do not do on demand: list tools over several pages, add a tool and
 * announce it with `notifications/tools/list_changed`, name tools the way
 * providers refuse (dots, 80 characters), hang until cancelled, exit with a
 * chosen code, and check a bearer token over streamable HTTP.
 *
 * Over stdio it runs as its own process:
 *
 * @example
 * const server = { command: process.execPath, args: ["--import", "tsx", FIXTURE_MCP_SERVER] };
 *
 * Over HTTP it runs in the test's process:
 *
 * @example
 * const http = await startMcpHttpFixture({ token: "t0ken" });
 * // ... url: http.url, headers: { Authorization: "Bearer ${TOKEN}" }
 * await http.close();
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type Handler,
  type LocalServer,
  listenLocal,
} from "../../src/testing/fakes/local-server.ts";

export const FIXTURE_MCP_SERVER = fileURLToPath(import.meta.url);

/** A tool name no provider accepts as a function name. */
export const DOTTED_TOOL = "repo.search";
/** 80 characters: too long for any id. */
export const LONG_TOOL = `summarize_${"very_".repeat(13)}long_name_x`;
export const PAGE_SIZE = 3;

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });

const object = (properties: Record<string, object> = {}, required: string[] = []) => ({
  type: "object" as const,
  properties,
  required,
});

const BASE_TOOLS: Tool[] = [
  {
    name: "echo",
    description: "Answers with the text it is given.",
    inputSchema: object({ text: { type: "string", description: "What to answer." } }, ["text"]),
  },
  {
    name: "add_tool",
    description: "Adds a tool with the given name and announces the change.",
    inputSchema: object({ name: { type: "string" } }, ["name"]),
  },
  { name: DOTTED_TOOL, description: "Says it was called.", inputSchema: object() },
  { name: LONG_TOOL, description: "Says it was called.", inputSchema: object() },
  { name: "fail", description: "Always answers with an error.", inputSchema: object() },
  {
    name: "picture",
    description: "Answers with an image and structured data, no text.",
    inputSchema: object(),
  },
  { name: "hang", description: "Never answers until cancelled.", inputSchema: object() },
  {
    name: "exit",
    description: "Writes a line to stderr and exits with the given code.",
    inputSchema: object({ code: { type: "number" } }),
  },
  {
    name: "task_only",
    description: "Runs only as a task.",
    inputSchema: object(),
    execution: { taskSupport: "required" },
  },
];

/** One fixture server; each holds its own tool list. */
export function createFixtureServer(): Server {
  const tools = [...BASE_TOOLS];
  const server = new Server(
    { name: "switchyard-fixture", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const end = start + PAGE_SIZE;
    return {
      tools: tools.slice(start, end),
      ...(end < tools.length ? { nextCursor: String(end) } : {}),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case "echo":
        return text(`echo: ${String(args.text)}`);
      case "add_tool": {
        const name = String(args.name);
        tools.push({ name, description: `Added at run time as ${name}.`, inputSchema: object() });
        await server.sendToolListChanged();
        return text(`added ${name}`);
      }
      case "fail":
        return { content: [{ type: "text", text: "the disk is on fire" }], isError: true };
      case "picture":
        return {
          content: [
            {
              type: "image",
              data: Buffer.alloc(3 * 1024).toString("base64"),
              mimeType: "image/png",
            },
          ],
          structuredContent: { width: 20, height: 10 },
        };
      case "hang":
        await new Promise<void>((resolve) =>
          extra.signal.addEventListener("abort", () => resolve()),
        );
        return text("cancelled");
      case "exit":
        process.stderr.write("fixture: exiting on request\n");
        setImmediate(() => process.exit(Number(args.code ?? 1)));
        return text("exiting");
      default:
        return text(`called ${request.params.name}`);
    }
  });
  return server;
}

export interface McpHttpFixture {
  readonly url: string;
  /** Stops answering (the port stays known, so {@link restart} can bring it back). */
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** The fixture over streamable HTTP (stateless: a server per request), behind a bearer token. */
export async function startMcpHttpFixture(options: { token: string }): Promise<McpHttpFixture> {
  const handler: Handler = async (req, res) => {
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    const server = createFixtureServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  let http: LocalServer | undefined = await listenLocal(handler);
  const { port, url } = http;
  const stop = async () => {
    const closing = http;
    http = undefined;
    await closing?.close();
  };
  return {
    url: `${url}/mcp`,
    stop,
    async restart() {
      http ??= await listenLocal(handler, { port });
    },
    close: stop,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await createFixtureServer().connect(new StdioServerTransport());
}
