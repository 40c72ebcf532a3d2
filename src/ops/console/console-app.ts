import type { IncomingMessage, ServerResponse } from "node:http";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { getRequestListener } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Queue } from "bullmq";
import { type Context, Hono } from "hono";
import { type ConversationAddress, conversationKey } from "../../core/conversation.ts";
import { reportContract } from "../../core/loading/report.ts";
import {
  type ActivityStore,
  addressOf,
  RECENT_CONVERSATIONS,
  type TurnActivity,
} from "../../store/activity-store.ts";
import type { AnswerRating } from "../../store/feedback-store.ts";
import type { ScheduleStore } from "../../store/schedule-store.ts";
import { type ContractSources, freezeState, readConversationState } from "../../turn/contract.ts";
import { CONSOLE_REALM, consoleAuthorized } from "./auth.ts";
import { html, page } from "./html.ts";
import { crossOriginRefusal } from "./origin.ts";
import { CONSOLE_PATH } from "./path.ts";
import { actionToken, actionTokenMatches, resetConversation } from "./reset.ts";
import { scheduleActionView, schedulesView } from "./schedules-view.ts";
import type { UsageReader } from "./usage.ts";
import { usageView, workspaceUsageView } from "./usage-view.ts";
import {
  conversationHref,
  conversationsView,
  conversationView,
  type McpServerState,
  mcpView,
} from "./views.ts";

/** Bull Board's two retry calls: all failed jobs of a queue, or one job. */
const RETRY = /^\/console\/queues\/api\/queues\/[^/]+\/(?:retry\/failed|[^/]+\/retry)$/;

export interface ConsoleOptions {
  /** Every request must carry it (bearer, or basic auth's password). */
  readonly token: string;
  readonly sources: ContractSources;
  readonly activity: ActivityStore;
  readonly usage: UsageReader;
  readonly queueMode: (address: ConversationAddress) => string;
  readonly mcp: () => readonly McpServerState[];
  /** The conversation queue's shards, by shard number, and the reminder queue. */
  readonly queues: { readonly conversation: readonly Queue[]; readonly reminders?: Queue };
  /** The schedules and the state of their runs; unset: the schedules page says there are none. */
  readonly schedules?: ScheduleStore;
}

/**
 * The operator console: Switchyard's own pages (recent conversations, one
 * conversation's contract and state, MCP servers), server-rendered, and Bull
 * Board for the queues under `/console/queues`. Every request without the
 * token is refused with 401 before anything is read, and every POST from
 * another site (its `Origin`) with 403. Read-only, except
 * what exists as a command: retrying a failed job in Bull Board,
 * resetting a conversation as `/new` does, and pausing or resuming a
 * schedule (each a POST carrying the page's form token, so another site
 * cannot make the operator's browser do it).
 *
 * @example
 * ops.mount(CONSOLE_PATH, consoleHandler({ token, sources, activity, usage, queueMode, mcp, queues }));
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
  app.use("*", async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const refusal = crossOriginRefusal(c.req.header("origin"), c.req.url);
    return refusal === undefined ? next() : c.text(refusal, 403);
  });
  app.get("/", async (c) =>
    c.html(page("Recent conversations", conversationsView(await options.activity.recent()))),
  );
  app.get("/mcp", (c) => c.html(page("MCP servers", mcpView(options.mcp()))));
  app.get("/usage", async (c) => {
    const recent = await options.activity.recent(RECENT_CONVERSATIONS);
    const seen = new Map(recent.map(({ address: a }) => [`${a.platform}:${a.workspace}`, a]));
    const [workspaces, people] = await Promise.all([
      Promise.all([...seen.values()].map((a) => options.usage.workspace(a))),
      options.usage.people(),
    ]);
    return c.html(page("Usage and limits", usageView(workspaces, people, Date.now())));
  });
  app.get("/usage/:platform/:workspace", async (c) => {
    const ref = { platform: c.req.param("platform"), workspace: c.req.param("workspace") };
    const usage = await options.usage.workspace(ref);
    const title = `Usage in ${ref.platform} workspace ${ref.workspace}`;
    return c.html(page(title, workspaceUsageView(usage, Date.now())));
  });
  app.get("/conversations/:key", async (c) => {
    const address = addressOf(c.req.param("key"));
    if (!address)
      return c.text("Not a conversation key (platform:workspace:channel:conversation).", 404);
    const state = await readConversationState(options.sources, address);
    const contract = freezeState(options.sources, address, state);
    const turns = await options.activity.turns(address);
    const ratings = await ratingsOf(options.sources, address, turns);
    const view = conversationView({
      address,
      report: reportContract(contract, options.sources.registry),
      intent: state.intent.intent,
      scopes: { workspace: state.layers.workspace, channel: state.layers.channel },
      queueMode: options.queueMode(address),
      turns,
      ratings,
      resetToken: actionToken(options.token, "reset", conversationKey(address)),
    });
    return c.html(page(`Conversation ${address.conversation}`, view));
  });
  // The votes on the conversation's last turns as data: what the page's Feedback column shows.
  app.get("/conversations/:key/feedback", async (c) => {
    const address = addressOf(c.req.param("key"));
    if (!address)
      return c.text("Not a conversation key (platform:workspace:channel:conversation).", 404);
    const turns = await options.activity.turns(address);
    const ratings = await ratingsOf(options.sources, address, turns);
    return c.json({ ratings: ratings.filter((r) => r !== undefined) });
  });
  app.post("/conversations/:key/reset", async (c) => {
    const address = addressOf(c.req.param("key"));
    if (!address)
      return c.text("Not a conversation key (platform:workspace:channel:conversation).", 404);
    const key = conversationKey(address);
    const form = await pageForm(c, options.token, "reset", key);
    if (form === undefined) {
      return c.text(
        "Refused: a reset must come from the console's own conversation page (its form carries a token another site cannot read). Open the page and press the button again.",
        403,
      );
    }
    const said = await resetConversation(options.sources, address, form.all === "yes");
    return c.html(page(`Conversation ${address.conversation}`, resetView(key, said)));
  });
  app.get("/schedules", async (c) => {
    const states = (await options.schedules?.list()) ?? [];
    const token = (action: string, id: string) =>
      actionToken(options.token, `schedule-${action}`, id);
    return c.html(page("Schedules", schedulesView(states, Date.now(), token)));
  });
  app.post("/schedules/:id/:action{pause|resume}", async (c) => {
    const id = c.req.param("id");
    const action = c.req.param("action") as "pause" | "resume";
    if ((await pageForm(c, options.token, `schedule-${action}`, id)) === undefined) {
      return c.text(
        `Refused: a schedule's ${action} must come from the console's schedules page (its form carries a token another site cannot read). Open the page and press the button again.`,
        403,
      );
    }
    const said = await changeSchedule(options.schedules, id, action);
    return c.html(page("Schedules", scheduleActionView(said)));
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

/** The votes on each turn's answer, by its id; a turn without one (or a failed read) shows none. */
async function ratingsOf(
  sources: ContractSources,
  address: ConversationAddress,
  turns: readonly TurnActivity[],
): Promise<(AnswerRating | undefined)[]> {
  const ids = turns.map((t) => t.turnId ?? "");
  const found = await sources.store.feedback
    .ratings(
      address,
      ids.filter((id) => id !== ""),
    )
    .catch(() => [] as (AnswerRating | undefined)[]);
  const byId = new Map(found.flatMap((r) => (r ? [[r.turnId, r] as const] : [])));
  return ids.map((id) => byId.get(id));
}

/**
 * The form a console page posted for `action` on `key`, or undefined when it
 * is not one: a browser marks it cross-site, or it lacks the page's token.
 */
async function pageForm(
  c: Context,
  secret: string,
  action: string,
  key: string,
): Promise<Record<string, unknown> | undefined> {
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return undefined;
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
  return actionTokenMatches(secret, action, key, form.token) ? form : undefined;
}

/** Pauses or resumes a schedule as the operator asked; what came of it, in a sentence. */
async function changeSchedule(
  store: ScheduleStore | undefined,
  id: string,
  action: "pause" | "resume",
): Promise<string> {
  const state = await store?.get(id);
  if (store === undefined || state === undefined) return `There is no schedule "${id}".`;
  if (state.ended !== undefined)
    return `Schedule "${id}" is over (${state.ended}); it takes no more runs.`;
  if (action === "pause") {
    return (await store.pause(id, "paused from the console.", Date.now()))
      ? `Paused schedule "${id}": it takes no runs until it is resumed.`
      : `Schedule "${id}" was paused already.`;
  }
  return (await store.resume(id, Date.now()))
    ? `Resumed schedule "${id}": its next tick runs; the ticks it missed while paused are not caught up.`
    : `Schedule "${id}" was not paused.`;
}

function resetView(key: string, said: string) {
  return html`<p id="command-reply">${said}</p><p><a href="${conversationHref(key)}">Back to the conversation</a></p>`;
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
