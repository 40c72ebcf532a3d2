import {
  type App,
  HTTPReceiver,
  LogLevel,
  type Receiver,
  type ReceiverEvent,
  SocketModeReceiver,
} from "@slack/bolt";
import type { LoggerPort } from "../../core/logger.ts";
import { RoutedReceiver, type SlackAppRouter } from "./app-router.ts";
import { describe, isRetryable } from "./errors.ts";
import { EVENTS_PATH, screenRequests } from "./http-screen.ts";
import { fieldsOf, payloadKind, type SlackPayloadKind, unhandledAck } from "./payload.ts";
import { screenSocketMessages } from "./socket-screen.ts";

export interface SlackIngressOptions {
  readonly logger: LoggerPort;
  /** The slash commands the app answers, named in the reply to one it does not. */
  readonly commands: readonly string[];
}

/** What Bolt's Socket Mode client hands a `slack_event` listener. */
interface SocketEnvelope {
  readonly type?: string;
  readonly body?: unknown;
  readonly retry_num?: number;
  readonly retry_reason?: string;
  ack(response?: unknown): Promise<void>;
}

/** Bolt's HTTP and Socket Mode receivers call nothing of the app but this. */
type EventProcessor = Pick<App, "processEvent">;

/**
 * Stands between Bolt's receiver and the app, so every payload is answered
 * and none can make ingress fail or hang:
 *
 * - a body that is not an object, or of no kind Bolt routes (app_rate_limited,
 *   shapes Slack may add) is acknowledged, and the rate limit reported;
 * - a payload Bolt itself cannot read (it throws on some shapes before any
 *   listener runs) is acknowledged and dropped, with a warning;
 * - a payload no listener acknowledged (an unknown slash command, someone
 *   else's button, a shortcut, a view, an options request) is acknowledged
 *   at once, where Bolt would answer 404 after three seconds;
 * - only a failure to take an event ({@link isRetryable}) goes back to the
 *   receiver, so Slack delivers the event again.
 */
class IngressGate implements EventProcessor {
  #app: EventProcessor | undefined;

  constructor(private readonly options: SlackIngressOptions) {}

  attach(app: EventProcessor): void {
    this.#app = app;
  }

  async processEvent(event: ReceiverEvent): Promise<void> {
    let acked = false;
    const ack = async (response?: unknown): Promise<void> => {
      acked = true;
      await event.ack(response);
    };
    const body: unknown = event.body;
    const kind = payloadKind(body);
    if (kind === undefined || kind === "other") {
      this.#noteUnrouted(body, kind);
      return ack();
    }
    try {
      await this.#app?.processEvent({ ...event, ack });
    } catch (error) {
      if (isRetryable(error)) throw error;
      this.options.logger.warn("acknowledged and dropped a Slack payload Bolt could not read", {
        kind,
        type: typeOf(body),
        error: describe(error),
      });
    }
    if (!acked) await ack(unhandledAck(kind, body, this.options.commands));
  }

  #noteUnrouted(body: unknown, kind: SlackPayloadKind | undefined): void {
    const b = fieldsOf(body);
    if (kind === undefined) {
      this.options.logger.warn("acknowledged and dropped a Slack payload that is not an object");
    } else if (b?.type === "app_rate_limited") {
      // Slack drops this app's events for the rest of that minute, and names the team.
      this.options.logger.warn(
        "Slack is rate-limiting this app's events: it drops those above 30,000 an hour for a workspace, and disables apps that fail more than 5% of deliveries",
        { team: b.team_id, minute: b.minute_rate_limited },
      );
    }
  }
}

function typeOf(body: unknown): unknown {
  const b = fieldsOf(body);
  return fieldsOf(b?.event)?.type ?? b?.type ?? b?.command;
}

/** A Bolt receiver whose app is the gate in front of the real one. */
class GatedReceiver implements Receiver {
  constructor(
    private readonly inner: Receiver,
    private readonly gate: IngressGate,
    /** Waits for what the inner receiver's stop only starts. */
    private readonly stopped: () => Promise<unknown> = async () => {},
  ) {}

  init(app: App): void {
    this.gate.attach(app);
    this.inner.init(this.gate as unknown as App);
  }

  start(...args: unknown[]): Promise<unknown> {
    return this.inner.start(...args);
  }

  async stop(...args: unknown[]): Promise<unknown> {
    const result = await this.inner.stop(...args);
    await this.stopped();
    return result;
  }
}

const NOT_TAKEN = "a Slack event was not taken; Slack will deliver it again";

/**
 * The Events API over HTTP at `/slack/events`: Bolt's HTTPReceiver, its
 * signature check kept, with the clock-skew and body screen in front
 * (http-screen.ts). `processBeforeResponse`: the ack goes out after the
 * listeners ran, so a message is on the queue before Slack hears it
 * arrived, and an event that could not be taken answers 503.
 */
export function slackHttpReceiver(
  options: SlackIngressOptions & {
    readonly signingSecret: string;
    /** With several apps (`slack.accounts`): the shared endpoint, and this app's `api_app_id` there. */
    readonly route?: { readonly router: SlackAppRouter; readonly appId?: string };
  },
): Receiver {
  const receiver = new HTTPReceiver({
    signingSecret: options.signingSecret,
    endpoints: EVENTS_PATH,
    processBeforeResponse: true,
    logLevel: LogLevel.ERROR,
    processEventErrorHandler: async ({ error, response }) => {
      options.logger.warn(NOT_TAKEN, { error: describe(error) });
      if (!response.headersSent) {
        response.writeHead(503);
        response.end();
      }
      return false;
    },
    unhandledRequestHandler: ({ response }) => {
      // Every listener acks well within Slack's 3 s; one that did not is stuck on Redis or the API.
      options.logger.warn("a Slack request was not answered within 3 seconds; answered 503");
      if (!response.headersSent) {
        response.writeHead(503);
        response.end();
      }
    },
  });
  screenRequests(receiver, options);
  const { route } = options;
  const listening = route ? new RoutedReceiver(receiver, route.router, route.appId) : receiver;
  return new GatedReceiver(listening, new IngressGate(options));
}

/**
 * Socket Mode: Bolt's SocketModeReceiver (connection, reconnects), its
 * frames screened (socket-screen.ts) and its envelopes taken here. Bolt
 * acks an event before its listeners run, so a message that could not be
 * queued would be lost (Slack redelivers only what was not acked): an
 * event's ack waits until the listeners are done, as over HTTP. Commands
 * and interactions carry their answer in the ack, sent once.
 */
export function slackSocketReceiver(
  options: SlackIngressOptions & {
    readonly appToken: string;
    readonly clientOptions: Record<string, unknown>;
  },
): Receiver {
  const receiver = new SocketModeReceiver({
    appToken: options.appToken,
    logLevel: LogLevel.ERROR,
    installerOptions: { clientOptions: options.clientOptions },
  });
  const gate = new IngressGate(options);
  screenSocketMessages(receiver.client, options.logger);
  receiver.client.removeAllListeners("slack_event");
  receiver.client.on("slack_event", async (envelope: SocketEnvelope) => {
    const held = envelope.type === "events_api";
    let sent = false;
    const ackOnce = async (response?: unknown): Promise<void> => {
      if (sent) return;
      sent = true;
      await envelope.ack(response);
    };
    try {
      await gate.processEvent({
        body: envelope.body as ReceiverEvent["body"],
        ack: held ? async () => {} : ackOnce,
        ...(envelope.retry_num !== undefined ? { retryNum: envelope.retry_num } : {}),
        ...(envelope.retry_reason !== undefined ? { retryReason: envelope.retry_reason } : {}),
        customProperties: {},
      });
      if (held) await ackOnce();
    } catch (error) {
      options.logger.warn(NOT_TAKEN, { error: describe(error) });
    }
  });
  // Bolt's Socket Mode stop does not wait for the socket to close; this does.
  return new GatedReceiver(receiver, gate, () => receiver.client.disconnect());
}
