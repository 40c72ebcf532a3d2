/**
 * A local Slack Socket Mode endpoint, so tests drive Bolt's real
 * SocketModeClient (a SlackChannel with `appToken`) over a real WebSocket.
 * `apps.connections.open` on the fake Web API checks the app token and hands
 * out a single-use `ws://` URL; the socket greets each connection with
 * `hello`, answers the client's pings, and lets the test push envelopes and
 * read the acks the app sends back.
 *
 * @example
 * const slack = await startFakeSlackApi();
 * const socket = await startFakeSocketMode(slack, { appToken: "xapp-1-A0FAKEAPP-1-secret" });
 * const channel = new SlackChannel({
 *   botToken: FAKE_SLACK.botToken,
 *   appToken: "xapp-1-A0FAKEAPP-1-secret",
 *   apiUrl: slack.url,
 * });
 * await channel.start(runtime); // resolves once the socket said hello
 * const ack = await socket.sendEvent(appMentionEvent({ text: "<@U0FAKEBOT> hi" }));
 * // ack.envelopeId is the envelope's id; Bolt acks events with an empty payload
 * const reply = await socket.sendSlashCommand({ text: "off lookup channel", userId: "U0ADMIN" });
 * // reply.payload is what the command handler passed to ack()
 * await channel.stop();
 * await socket.close();
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import { listenLocal, parseJson } from "../../src/testing/fakes/local-server.ts";
import type { FakeSlackApi, RecordedCall, SlackResult } from "../../src/testing/fakes/slack-api.ts";
import {
  type EventOptions,
  eventEnvelope,
  type SlashCommandInput,
} from "../../src/testing/fakes/slack-requests.ts";
import type { FakeSlackIdentity } from "../../src/testing/fakes/slack-workspace.ts";

const OPEN = "apps.connections.open";
/** Refused at once: a test that needs `respond()` passes `fake.responseUrl()`. */
const UNREACHABLE_RESPONSE_URL = "http://127.0.0.1:9/response/unset";

export interface FakeSocketModeOptions {
  /** The app-level token (`xapp-…`) `apps.connections.open` accepts. */
  appToken: string;
  /** How long a send waits for the app's ack. Defaults to 5000 ms. */
  ackTimeoutMs?: number;
}

/** What the app sent back for an envelope. */
export interface SocketModeAck {
  envelopeId: string;
  /** Empty for events; for commands and interactions, what the handler passed to `ack()`. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields
  payload: any;
  at: number;
}

export interface EnvelopeOptions {
  /** Defaults to a fresh UUID, as Slack's are. */
  envelopeId?: string;
  /** Redeliveries count up from 1; Slack sends 0 on the first delivery. */
  retryAttempt?: number;
  /** Defaults to "timeout" on a redelivery, "" otherwise. */
  retryReason?: string;
  /**
   * Which open connection gets the envelope, in the order they connected
   * (0 is the first); defaults to the newest. Slack spreads envelopes over an
   * app's connections, one per ingress process.
   */
  connection?: number;
}

/** The envelope's fields (event id, teams, Slack Connect) as over HTTP; see slack-requests.ts. */
export interface SocketEventOptions
  extends EnvelopeOptions,
    Pick<EventOptions, "eventId" | "teamId" | "installedTeamId" | "extShared" | "eventTime"> {}

export type EnvelopeType = "events_api" | "slash_commands" | "interactive";

export interface FakeSocketMode {
  /** WebSocket connections the app opened so far. */
  readonly connections: number;
  /** Ping frames the app's heartbeat sent (each answered with a pong). */
  readonly pings: number;
  /** Every ack, in arrival order. */
  acks: SocketModeAck[];
  /** Wraps `event` (e.g. `appMentionEvent(...)`) in an `event_callback`, sends it, waits for its ack. */
  sendEvent(event: Record<string, unknown>, options?: SocketEventOptions): Promise<SocketModeAck>;
  /** Sends a slash command (`/tools` by default) and resolves with the app's ack. */
  sendSlashCommand(input?: SlashCommandInput, options?: EnvelopeOptions): Promise<SocketModeAck>;
  /** Sends any envelope, e.g. an `interactive` block_actions payload, and waits for its ack. */
  send(type: EnvelopeType, payload: unknown, options?: EnvelopeOptions): Promise<SocketModeAck>;
  /** Sends a raw text frame as it is (a fuzzed or broken envelope); waits for nothing. */
  sendText(text: string, connection?: number): void;
  close(): Promise<void>;
}

export async function startFakeSocketMode(
  slackApi: FakeSlackApi,
  { appToken, ackTimeoutMs = 5_000 }: FakeSocketModeOptions,
): Promise<FakeSocketMode> {
  const tickets = new Set<string>();
  const sockets: WebSocket[] = [];
  const acks: SocketModeAck[] = [];
  const waiting = new Map<string, (ack: SocketModeAck) => void>();
  let connections = 0;
  let pings = 0;

  // Slack's tickets are single-use: a reconnect goes through apps.connections.open again.
  // What a WebSocket server answers a plain HTTP request.
  const http = await listenLocal((_req, res) => void res.writeHead(426).end("Upgrade Required"));
  const server = new WebSocketServer({
    server: http.server,
    verifyClient: ({ req }: { req: IncomingMessage }) => {
      const ticket = new URL(req.url ?? "/", "ws://fake").searchParams.get("ticket") ?? "";
      return tickets.delete(ticket);
    },
  });
  const origin = http.url.replace(/^http/, "ws");

  server.on("connection", (ws) => {
    connections += 1;
    sockets.push(ws);
    ws.on("close", () => {
      const at = sockets.indexOf(ws);
      if (at >= 0) sockets.splice(at, 1);
    });
    ws.on("ping", () => {
      pings += 1; // ws sends the pong itself
    });
    ws.on("message", (data) => {
      const message = parseJson(String(data)) as { envelope_id?: string; payload?: unknown };
      if (typeof message?.envelope_id !== "string") return;
      const ack = { envelopeId: message.envelope_id, payload: message.payload, at: Date.now() };
      acks.push(ack);
      waiting.get(ack.envelopeId)?.(ack);
    });
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: sockets.length,
        debug_info: { host: "fake-applink-0", build_number: 1, approximate_connection_time: 18060 },
        connection_info: { app_id: slackApi.identity.appId },
      }),
    );
  });

  const openConnection = (call: RecordedCall | undefined): SlackResult => {
    if (call?.token === undefined) return { ok: false, error: "not_authed" };
    if (call.token.startsWith("xoxb-") || call.token.startsWith("xoxp-")) {
      return { ok: false, error: "not_allowed_token_type" };
    }
    if (call.token !== appToken) return { ok: false, error: "invalid_auth" };
    const ticket = randomUUID();
    tickets.add(ticket);
    return { ok: true, url: `${origin}/link/?ticket=${ticket}&app_id=${slackApi.identity.appId}` };
  };
  answerAppTokenCalls(slackApi, OPEN, openConnection);

  const socketAt = (connection: number | undefined) =>
    connection === undefined ? sockets.at(-1) : sockets[connection];

  const send = (type: EnvelopeType, payload: unknown, options: EnvelopeOptions = {}) => {
    const ws = socketAt(options.connection);
    if (!ws) {
      return Promise.reject(
        new Error("No Socket Mode app is connected: start the SlackChannel with `appToken` first."),
      );
    }
    const envelopeId = options.envelopeId ?? randomUUID();
    const retryAttempt = options.retryAttempt ?? 0;
    const envelope = {
      envelope_id: envelopeId,
      type,
      accepts_response_payload: type !== "events_api",
      payload,
      ...(type === "events_api"
        ? {
            retry_attempt: retryAttempt,
            retry_reason: options.retryReason ?? (retryAttempt > 0 ? "timeout" : ""),
          }
        : {}),
    };
    return new Promise<SocketModeAck>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(envelopeId);
        const seen = acks.map((a) => a.envelopeId).join(", ") || "none";
        reject(
          new Error(
            `No ack for ${type} envelope ${envelopeId} within ${ackTimeoutMs} ms; acks so far: ${seen}`,
          ),
        );
      }, ackTimeoutMs);
      waiting.set(envelopeId, (ack) => {
        clearTimeout(timer);
        waiting.delete(envelopeId);
        resolve(ack);
      });
      ws.send(JSON.stringify(envelope));
    });
  };

  return {
    get connections() {
      return connections;
    },
    get pings() {
      return pings;
    },
    acks,
    send,
    sendText: (text, connection) => {
      const ws = socketAt(connection);
      if (!ws) throw new Error(`No Socket Mode connection ${connection ?? "(newest)"} is open.`);
      ws.send(text);
    },
    sendEvent: (event, options = {}) =>
      send("events_api", eventCallback(event, options, slackApi.identity), options),
    sendSlashCommand: (input = {}, options = {}) =>
      send("slash_commands", slashCommand(input, slackApi.identity), options),
    close: async () => {
      // Bolt's stop() starts the close handshake without waiting for it: give it a moment.
      await Promise.all(sockets.map((ws) => closed(ws, 1_000)));
      for (const ws of [...sockets]) ws.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await http.close();
    },
  };
}

/**
 * Answers `method` for calls made with a token other than the bot token.
 *
 * The fake Web API refuses every token but the bot token before a `setMethod`
 * handler runs, and Socket Mode calls `apps.connections.open` with the app
 * token. Scripted replies skip that check, so the method gets an endless
 * chain of them, each computing its body for the call it answers when the fake
 * reads it. Once slack-api.ts lets a handler see other tokens, this is
 * `slackApi.setMethod(method, answer)`.
 */
function answerAppTokenCalls(
  slackApi: FakeSlackApi,
  method: string,
  answer: (call: RecordedCall | undefined) => SlackResult,
): void {
  const answered = new Set<RecordedCall>();
  const queueNext = () => {
    let body: SlackResult | undefined;
    slackApi.script(method, {
      get body() {
        if (body === undefined) {
          const call = slackApi
            .callsTo(method)
            .find((c) => c.status === undefined && !answered.has(c));
          if (call) answered.add(call);
          body = answer(call);
          queueNext();
        }
        return body;
      },
    });
  };
  queueNext();
}

/** The `event_callback` body Slack wraps an event in, as the Events API sends it. */
function eventCallback(
  event: Record<string, unknown>,
  options: SocketEventOptions,
  identity: FakeSlackIdentity,
): Record<string, unknown> {
  return eventEnvelope(event, {
    ...options,
    teamId: options.teamId ?? identity.teamId,
    appId: identity.appId,
    botUserId: identity.botUserId,
  });
}

/** A slash command's fields: over HTTP a form, over the socket the same names as JSON strings. */
function slashCommand(
  input: SlashCommandInput,
  identity: FakeSlackIdentity,
): Record<string, string> {
  return {
    token: "fake-verification-token",
    team_id: input.teamId ?? identity.teamId,
    team_domain: identity.teamDomain,
    channel_id: input.channelId ?? "C0GENERAL",
    channel_name: input.channelName ?? "general",
    user_id: input.userId ?? "U0HUMAN",
    user_name: input.userName ?? "human",
    command: input.command ?? "/tools",
    text: input.text ?? "",
    api_app_id: input.appId ?? identity.appId,
    is_enterprise_install: "false",
    response_url: input.responseUrl ?? UNREACHABLE_RESPONSE_URL,
    trigger_id:
      input.triggerId ??
      `${Date.now()}.${randomBytes(4).readUInt32BE()}.${randomBytes(16).toString("hex")}`,
  };
}

/** Resolves when `ws` closes, or after `ms`. */
function closed(ws: WebSocket, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    ws.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
