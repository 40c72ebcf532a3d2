/**
 * The gateway half of the fake Discord: a WebSocket on the REST server's port
 * at `/gateway`, speaking plain JSON frames (discord.js only asks for
 * zlib-stream when zlib-sync is installed; don't install it).
 *
 * A connection gets HELLO; IDENTIFY gets READY and then a GUILD_CREATE per
 * guild, as the bot of its token (an unknown token is closed with 4004, as
 * Discord does); RESUME with a known session gets RESUMED and no replay
 * (tests send a "replayed" event themselves with `dispatch`); heartbeats get
 * acks. Each session is its bot's: a dispatch can go to one bot's sessions.
 *
 * The WebSocket server is the `ws` package, loaded when a fake Discord starts:
 * it is in every install of Switchyard through discord.js, but a test kit
 * should not lean on a dependency of a dependency, so a missing one is a clear
 * error rather than a failed import of the whole kit.
 */
import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { WebSocket } from "ws";

/** Gateway opcodes the fake speaks. */
const Op = {
  Dispatch: 0,
  Heartbeat: 1,
  Identify: 2,
  Resume: 6,
  Reconnect: 7,
  InvalidSession: 9,
  Hello: 10,
  HeartbeatAck: 11,
} as const;

export interface GatewayFrame {
  op: number;
  d: unknown;
  s: number | null;
  t: string | null;
}

export interface FakeGatewayOptions {
  /** Defaults to 41250 ms, Discord's usual value. */
  heartbeatIntervalMs?: number;
  /**
   * The READY payload for an IDENTIFY (session_id and resume_gateway_url are
   * added); undefined when its token is no bot's, which closes with 4004.
   */
  ready: (identify: Record<string, unknown>) => Record<string, unknown> | undefined;
  /** The GUILD_CREATE payloads that follow READY, for the bot of the IDENTIFY's token. */
  guildCreates: (identify: Record<string, unknown>) => Record<string, unknown>[];
}

export interface FakeGateway {
  url: string;
  /** Frames the clients sent (IDENTIFY, RESUME, heartbeats, presence updates …), in arrival order. */
  received: GatewayFrame[];
  readonly identifies: number;
  readonly resumes: number;
  /** IDENTIFYs and RESUMEs accepted for one bot's token. */
  countsOf(token: string): { identifies: number; resumes: number };
  /**
   * Sends a DISPATCH to every ready connection, or to those of the bots
   * whose token `to` accepts; returns how many got it.
   */
  dispatch(eventName: string, data: unknown, to?: (token: string) => boolean): number;
  /** Asks every client to reconnect (op 7); discord.js comes back with RESUME. */
  reconnect(): void;
  close(): Promise<void>;
}

interface Session {
  id: string;
  /** The token it identified with: the bot it is. */
  token: string;
  sequence: number;
  ws: WebSocket | undefined;
}

/** The fake Discord needs `ws` for its gateway, and it could not be loaded. */
export class MissingWebSocketError extends Error {
  override readonly name = "MissingWebSocketError";
}

async function loadWebSocketServer(): Promise<typeof import("ws").WebSocketServer> {
  try {
    return (await import("ws")).WebSocketServer;
  } catch (error) {
    throw new MissingWebSocketError(
      `The fake Discord's gateway needs the "ws" package, which could not be loaded (${String(error)}). Install it beside switchyard: npm install --save-dev ws`,
    );
  }
}

export async function attachFakeGateway(
  server: Server,
  origin: string,
  options: FakeGatewayOptions,
): Promise<FakeGateway> {
  const WebSocketServer = await loadWebSocketServer();
  const { heartbeatIntervalMs = 41_250 } = options;
  const url = `${origin.replace(/^http/, "ws")}/gateway`;
  const wss = new WebSocketServer({ server, path: "/gateway" });
  const sessions = new Map<string, Session>();
  const received: GatewayFrame[] = [];
  const counts = new Map<string, { identifies: number; resumes: number }>();
  const countsOf = (token: string) => {
    const found = counts.get(token) ?? { identifies: 0, resumes: 0 };
    counts.set(token, found);
    return found;
  };
  const total = (key: "identifies" | "resumes") =>
    [...counts.values()].reduce((sum, c) => sum + c[key], 0);

  const send = (session: Session, t: string, d: unknown) => {
    session.sequence += 1;
    session.ws?.send(JSON.stringify({ op: Op.Dispatch, t, s: session.sequence, d }));
  };

  wss.on("connection", (ws) => {
    let session: Session | undefined;
    const reply = (op: number, d: unknown) => ws.send(JSON.stringify({ op, d, s: null, t: null }));
    ws.on("message", (data) => {
      const frame = parseFrame(String(data));
      if (!frame) return;
      received.push(frame);
      const d = (frame.d ?? {}) as Record<string, unknown>;
      if (frame.op === Op.Heartbeat) return reply(Op.HeartbeatAck, null);
      if (frame.op === Op.Identify) {
        const ready = options.ready(d);
        if (!ready) return ws.close(4004, "Authentication failed.");
        const token = String(d.token);
        countsOf(token).identifies += 1;
        session = { id: randomBytes(16).toString("hex"), token, sequence: 0, ws };
        sessions.set(session.id, session);
        send(session, "READY", { ...ready, session_id: session.id, resume_gateway_url: url });
        for (const guild of options.guildCreates(d)) send(session, "GUILD_CREATE", guild);
        return;
      }
      if (frame.op === Op.Resume) {
        const known = sessions.get(String(d.session_id));
        // false: the session cannot be resumed, so the client identifies afresh.
        if (!known || known.token !== String(d.token)) return reply(Op.InvalidSession, false);
        countsOf(known.token).resumes += 1;
        if (known.ws && known.ws !== ws) known.ws.terminate();
        known.ws = ws;
        session = known;
        send(session, "RESUMED", null);
      }
    });
    ws.on("close", () => {
      if (session?.ws === ws) session.ws = undefined;
    });
    reply(Op.Hello, { heartbeat_interval: heartbeatIntervalMs, _trace: ["fake-gateway"] });
  });

  const gateway: FakeGateway = {
    url,
    received,
    get identifies() {
      return total("identifies");
    },
    get resumes() {
      return total("resumes");
    },
    countsOf: (token) => ({ ...countsOf(token) }),
    dispatch: (eventName, data, to = () => true) => {
      let sent = 0;
      for (const session of sessions.values()) {
        if (session.ws?.readyState !== 1 || !to(session.token)) continue;
        send(session, eventName, data);
        sent += 1;
      }
      return sent;
    },
    reconnect: () => {
      for (const session of sessions.values()) {
        session.ws?.send(JSON.stringify({ op: Op.Reconnect, d: null, s: null, t: null }));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close(() => resolve());
      }),
  };
  return gateway;
}

function parseFrame(text: string): GatewayFrame | undefined {
  try {
    const frame = JSON.parse(text) as GatewayFrame;
    return typeof frame?.op === "number" ? frame : undefined;
  } catch {
    return undefined;
  }
}
