import type { IncomingMessage, ServerResponse } from "node:http";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { getRequestListener } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Queue } from "bullmq";
import { Hono } from "hono";
import {
  type ContractSources,
  freezeState,
  readConversationState,
} from "../conversation/contract.ts";
import type { ConversationAddress } from "../core/agent/inbound.ts";
import { reportContract } from "../core/loading/report.ts";
import { type ActivityStore, addressOf } from "../store/activity-store.ts";
import { CONSOLE_REALM, consoleAuthorized } from "./auth.ts";
import { page } from "./html.ts";
import { conversationsView, conversationView, type McpServerState, mcpView } from "./views.ts";

/** Bull Board's two retry calls: all failed jobs of a queue, or one job. */
const RETRY = /^\/console\/queues\/api\/queues\/[^/]+\/(?:retry\/failed|[^/]+\/retry)$/;

/** The path the console is served under on the metrics server. */
export const CONSOLE_PATH = "/console";

export interface ConsoleOptions {
  /** Every request must carry it (bearer, or basic auth's password). */
  readonly token: string;
  readonly sources: ContractSources;
  readonly activity: ActivityStore;
  readonly queueMode: (address: ConversationAddress) => string;
  readonly mcp: () => readonly McpServerState[];
  /** The conversation queue's shards, by shard number, and the reminder queue. */
  readonly queues: { readonly conversation: readonly Queue[]; readonly reminders?: Queue };
}

/**
 * The operator console: Switchyard's own pages (recent conversations, one
 * conversation's contract and state, MCP servers), server-rendered, and Bull
 * Board for the queues under `/console/queues`. Every request without the
 * token is refused with 401 before anything is read. Read-only, except
 * retrying a failed job in Bull Board.
 *
 * @example
 * ops.mount(CONSOLE_PATH, consoleHandler({ token, sources, activity, queueMode, mcp, queues }));
 */
export function consoleHandler(
  options: ConsoleOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const app = new Hono().basePath(CONSOLE_PATH);
  app.use("*", async (c, next) => {
    if (consoleAuthorized(c.req.header("authorization"), options.token)) return next();
    c.header("www-authenticate", `Basic realm="${CONSOLE_REALM}", charset="UTF-8"`);
    return c.text("The console needs the token in SWITCHYARD_CONSOLE_TOKEN.", 401);
  });
  app.get("/", async (c) =>
    c.html(page("Recent conversations", conversationsView(await options.activity.recent()))),
  );
  app.get("/mcp", (c) => c.html(page("MCP servers", mcpView(options.mcp()))));
  app.get("/conversations/:key", async (c) => {
    const address = addressOf(c.req.param("key"));
    if (!address)
      return c.text("Not a conversation key (platform:workspace:channel:conversation).", 404);
    const state = await readConversationState(options.sources, address);
    const contract = freezeState(options.sources, address, state);
    const view = conversationView({
      address,
      report: reportContract(contract, options.sources.registry),
      intent: state.intent.intent,
      scopes: { workspace: state.layers.workspace, channel: state.layers.channel },
      queueMode: options.queueMode(address),
      turns: await options.activity.turns(address),
    });
    return c.html(page(`Conversation ${address.conversation}`, view));
  });
  app.use("/queues/api/*", async (c, next) => {
    if (c.req.method === "GET" || RETRY.test(new URL(c.req.url).pathname)) return next();
    return c.text(
      "The console is read-only: it retries failed jobs and changes nothing else.",
      403,
    );
  });
  app.route("/queues", queueBoard(options.queues));
  const listener = getRequestListener(app.fetch);
  return (req, res) => listener(req, res);
}

function queueBoard(queues: ConsoleOptions["queues"]): Hono {
  const adapter = new HonoAdapter(serveStatic).setBasePath(`${CONSOLE_PATH}/queues`);
  const shards = queues.conversation.length;
  // Bull Board's read-only mode also hides retries; the middleware above refuses the rest.
  const onlyRetries = { readOnlyMode: false, allowRetries: true, allowCompletedRetries: false };
  createBullBoard({
    queues: [
      ...queues.conversation.map(
        (queue, shard) =>
          new BullMQAdapter(queue, {
            ...onlyRetries,
            prefix: `shard ${shard} of ${shards}: `,
            displayName: `conversations, shard ${shard} of ${shards}`,
          }),
      ),
      ...(queues.reminders
        ? [new BullMQAdapter(queues.reminders, { ...onlyRetries, displayName: "reminders" })]
        : []),
    ],
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: "Switchyard queues" } },
  });
  return adapter.registerPlugin();
}
