import type { SocketModeReceiver } from "@slack/bolt";
import type { LoggerPort } from "../../core/logger.ts";
import { describe } from "./errors.ts";
import { fieldsOf } from "./payload.ts";

type SocketModeClient = SocketModeReceiver["client"];
type MessageListener = (data: string | ArrayBuffer, isBinary: boolean) => Promise<void>;

/** The envelope types Slack sends an app (apps.connections.open's socket). */
const ENVELOPES = new Set(["hello", "disconnect", "events_api", "slash_commands", "interactive"]);

/**
 * Names the client emits for itself: an event of such a type would be
 * taken for the client's own signal (`close` starts a reconnect,
 * `ws_message` recurses into the parser), so none is let through.
 */
const CLIENT_EVENTS = new Set([
  "error",
  "close",
  "ws_message",
  "slack_event",
  "outgoing_message",
  "connecting",
  "connected",
  "reconnecting",
  "disconnecting",
  "disconnected",
  "authenticated",
]);

/**
 * Looks at each Socket Mode frame before the SocketModeClient parses it.
 * The client emits an envelope's `type` (or its event's type) as an event
 * name and reads `payload.event.type` without a check, in a promise nobody
 * catches: a `null` frame, an events_api envelope without an event, or an
 * event named `close` would end the process or make the client reconnect.
 * Such a frame is acknowledged (when it has an envelope id, so Slack does
 * not send it again) and dropped; every other frame goes to the client as
 * it came.
 */
export function screenSocketMessages(client: SocketModeClient, logger: LoggerPort): void {
  const [parse] = client.listeners("ws_message") as MessageListener[];
  if (!parse) return;
  client.removeAllListeners("ws_message");
  client.on("ws_message", (data: string | ArrayBuffer, isBinary: boolean) => {
    const verdict: Verdict = isBinary ? { ok: true } : readFrame(data);
    if (verdict.ok) {
      parse(data, isBinary).catch((error: unknown) => {
        logger.warn("a Slack Socket Mode frame could not be read; it was dropped", {
          error: describe(error),
        });
      });
      return;
    }
    logger.warn("dropped a Slack Socket Mode frame that is not an envelope Slack sends", {
      problem: verdict.problem,
    });
    if (verdict.envelopeId) ackEnvelope(client, verdict.envelopeId, logger);
  });
}

type Verdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly problem: string; readonly envelopeId?: string };

function readFrame(data: string | ArrayBuffer): Verdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
  } catch {
    return { ok: true }; // the client logs unparseable frames and ignores them
  }
  const envelope = fieldsOf(parsed);
  if (!envelope) return { ok: false, problem: "not a JSON object" };
  const id = typeof envelope.envelope_id === "string" ? envelope.envelope_id : undefined;
  const refuse = (problem: string): Verdict => ({
    ok: false,
    problem,
    ...(id ? { envelopeId: id } : {}),
  });
  const type = envelope.type;
  if (typeof type !== "string" || !ENVELOPES.has(type)) return refuse("unknown envelope type");
  if (type !== "events_api") return { ok: true };
  const event = fieldsOf(fieldsOf(envelope.payload)?.event);
  if (typeof event?.type !== "string")
    return refuse("an events_api envelope without an event type");
  if (CLIENT_EVENTS.has(event.type)) return refuse(`an event named ${JSON.stringify(event.type)}`);
  return { ok: true };
}

/**
 * Acks an envelope the client will not see. `send` is how the client's own
 * ack() answers (private in its types only; Bolt's receiver notes the same
 * wish to see it public).
 */
function ackEnvelope(client: SocketModeClient, envelopeId: string, logger: LoggerPort): void {
  const send = (client as unknown as { send(id: string, body?: unknown): Promise<void> }).send;
  send.call(client, envelopeId, {}).catch((error: unknown) => {
    logger.warn("could not ack a dropped Slack Socket Mode envelope", { error: describe(error) });
  });
}
