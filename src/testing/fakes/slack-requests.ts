/**
 * What Slack sends to an app's request URL, signed the way Slack signs it, so
 * tests drive the real Bolt receiver: Events API callbacks (with retry
 * headers), slash commands and block actions (form-encoded, as Slack sends
 * them), and the URL verification handshake.
 *
 * Slack's v0 signature is `v0=` + hex HMAC-SHA256 over `v0:<timestamp>:<raw
 * body>` with the app's signing secret, in `x-slack-signature`, with the
 * timestamp in `x-slack-request-timestamp`; Bolt refuses (401) a bad signature
 * and a timestamp more than five minutes old.
 *
 * @example
 * const url = `http://127.0.0.1:${port}/slack/events`;
 * const { status } = await sendEvent(url, SECRET, appMentionEvent({ text: "<@U0FAKEBOT> hi" }), {
 *   eventId: "Ev01",
 * });
 * await sendSlashCommand(url, SECRET, { text: "off web_search channel", userId: "U0ADA" });
 */
import { createHmac, randomBytes } from "node:crypto";
import { FAKE_SLACK } from "./slack-workspace.ts";

/** The deprecated verification token Slack still puts in payloads; Bolt ignores it. */
const VERIFICATION_TOKEN = "fake-verification-token";
/** Connection refused at once: a test that needs `respond()` passes `fake.responseUrl()`. */
const UNREACHABLE_RESPONSE_URL = "http://127.0.0.1:9/response/unset";

export interface SlackRequestResult {
  status: number;
  /** Parsed JSON when the app answered JSON, else the text ("" for an empty ack). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields
  body: any;
}

export interface SigningOptions {
  /** Signs with a wrong secret. */
  badSignature?: boolean;
  /** Signs correctly, but with a timestamp six minutes old. */
  staleTimestamp?: boolean;
  /** Unix seconds to sign with; defaults to now. */
  timestamp?: number;
}

/** The headers Slack adds to a request with this raw body. */
export function signSlackRequest(
  body: string,
  secret: string,
  timestamp: number = Math.floor(Date.now() / 1000),
): { "x-slack-request-timestamp": string; "x-slack-signature": string } {
  const digest = createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex");
  return { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": `v0=${digest}` };
}

export interface EventOptions extends SigningOptions {
  /** Slack's id for this delivery; retries repeat it. Defaults to a fresh one. */
  eventId?: string;
  /**
   * The envelope's `team_id` (and `context_team_id`). In a Slack Connect
   * channel it can be the sender's team rather than the installation's.
   */
  teamId?: string;
  /** `authorizations[0].team_id`: the team the app is installed in. Defaults to `teamId`. */
  installedTeamId?: string;
  /** `is_ext_shared_channel`: the event comes from a Slack Connect channel. */
  extShared?: boolean;
  appId?: string;
  /** The bot user the event is authorized for. */
  botUserId?: string;
  /** Sets `x-slack-retry-num`, as on Slack's redeliveries (1, 2, 3). */
  retryNum?: number;
  /** `x-slack-retry-reason`; defaults to "http_timeout" when `retryNum` is set. */
  retryReason?: string;
  /** Unix seconds; defaults to now. */
  eventTime?: number;
}

/** Posts an Events API `event_callback` wrapping `event`. */
export function sendEvent(
  url: string,
  secret: string,
  event: Record<string, unknown>,
  options: EventOptions = {},
): Promise<SlackRequestResult> {
  const headers: Record<string, string> = {};
  if (options.retryNum !== undefined) {
    headers["x-slack-retry-num"] = String(options.retryNum);
    headers["x-slack-retry-reason"] = options.retryReason ?? "http_timeout";
  }
  const body = JSON.stringify(eventEnvelope(event, options));
  return sendSigned(url, secret, body, "application/json", options, headers);
}

/** The `event_callback` envelope Slack wraps an event in, over HTTP and over Socket Mode alike. */
export function eventEnvelope(
  event: Record<string, unknown>,
  options: Omit<EventOptions, keyof SigningOptions> = {},
): Record<string, unknown> {
  const teamId = options.teamId ?? FAKE_SLACK.teamId;
  return {
    token: VERIFICATION_TOKEN,
    team_id: teamId,
    context_team_id: teamId,
    context_enterprise_id: null,
    api_app_id: options.appId ?? FAKE_SLACK.appId,
    event: { event_ts: event.ts, ...event },
    type: "event_callback",
    event_id: options.eventId ?? `Ev${randomBytes(5).toString("hex").toUpperCase()}`,
    event_time: options.eventTime ?? Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: options.installedTeamId ?? teamId,
        user_id: options.botUserId ?? FAKE_SLACK.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: options.extShared ?? false,
    event_context: `4-${randomBytes(12).toString("base64url")}`,
  };
}

let userTs = 1_690_000_000_000_000;
/** A message timestamp for something a person wrote, earlier than any the fake API hands out. */
export function nextUserTs(): string {
  userTs += 1;
  return `${Math.floor(userTs / 1_000_000)}.${String(userTs % 1_000_000).padStart(6, "0")}`;
}

export interface MessageEventInput {
  text: string;
  user?: string;
  channel?: string;
  ts?: string;
  threadTs?: string;
  teamId?: string;
  /** "channel" (default), "im", "group" or "mpim"; only for `message` events. */
  channelType?: string;
  /** `user_team`: the sender's team, set by Slack in Slack Connect channels. */
  userTeam?: string;
}

/** An `app_mention` event as Slack sends it; `text` should contain `<@BOT_USER_ID>`. */
export function appMentionEvent(input: MessageEventInput): Record<string, unknown> {
  return { type: "app_mention", ...messageFields(input) };
}

/** A `message` event (a DM with `channelType: "im"`, a thread reply with `threadTs`). */
export function messageEvent(input: MessageEventInput): Record<string, unknown> {
  return { type: "message", ...messageFields(input), channel_type: input.channelType ?? "channel" };
}

function messageFields(input: MessageEventInput): Record<string, unknown> {
  const ts = input.ts ?? nextUserTs();
  return {
    user: input.user ?? "U0HUMAN",
    text: input.text,
    ts,
    client_msg_id: randomBytes(16).toString("hex"),
    team: input.teamId ?? FAKE_SLACK.teamId,
    ...(input.userTeam ? { user_team: input.userTeam, source_team: input.userTeam } : {}),
    channel: input.channel ?? "C0GENERAL",
    event_ts: ts,
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    blocks: [
      {
        type: "rich_text",
        block_id: randomBytes(3).toString("hex"),
        elements: [{ type: "rich_text_section", elements: [{ type: "text", text: input.text }] }],
      },
    ],
  };
}

export interface AssistantThreadEventInput {
  /** The person who opened the pane; defaults to U0HUMAN. */
  user?: string;
  /** The DM the pane's thread is in (D…); `fake.openAssistantThread` gives it and the ts. */
  channel: string;
  threadTs: string;
  /**
   * What the person is looking at. Defaults to C0GENERAL in the fake's team,
   * with `enterprise_id: null` as Slack sends it outside Enterprise Grid; `{}`
   * is a pane opened from no channel.
   */
  context?: { channel_id?: string; team_id?: string; enterprise_id?: string | null };
}

/**
 * An `assistant_thread_started` (a person opened the assistant pane) or
 * `assistant_thread_context_changed` (they looked at another channel with it
 * open) event, shaped as Slack documents them.
 */
export function assistantThreadEvent(
  type: "assistant_thread_started" | "assistant_thread_context_changed",
  input: AssistantThreadEventInput,
): Record<string, unknown> {
  return {
    type,
    assistant_thread: {
      user_id: input.user ?? "U0HUMAN",
      context: input.context ?? {
        channel_id: "C0GENERAL",
        team_id: FAKE_SLACK.teamId,
        enterprise_id: null,
      },
      channel_id: input.channel,
      thread_ts: input.threadTs,
    },
    event_ts: nextUserTs(),
  };
}

export interface SlashCommandInput {
  /** Defaults to "/tools". */
  command?: string;
  text?: string;
  userId?: string;
  userName?: string;
  channelId?: string;
  channelName?: string;
  teamId?: string;
  appId?: string;
  /** Pass `fake.responseUrl({ channel })` to record `respond()`; the default refuses to connect. */
  responseUrl?: string;
  triggerId?: string;
}

/** Posts a slash command, form-encoded with Slack's fields. */
export function sendSlashCommand(
  url: string,
  secret: string,
  input: SlashCommandInput = {},
  signing: SigningOptions = {},
): Promise<SlackRequestResult> {
  const form = new URLSearchParams({
    token: VERIFICATION_TOKEN,
    team_id: input.teamId ?? FAKE_SLACK.teamId,
    team_domain: FAKE_SLACK.teamDomain,
    channel_id: input.channelId ?? "C0GENERAL",
    channel_name: input.channelName ?? "general",
    user_id: input.userId ?? "U0HUMAN",
    user_name: input.userName ?? "human",
    command: input.command ?? "/tools",
    text: input.text ?? "",
    api_app_id: input.appId ?? FAKE_SLACK.appId,
    is_enterprise_install: "false",
    response_url: input.responseUrl ?? UNREACHABLE_RESPONSE_URL,
    trigger_id: input.triggerId ?? triggerId(),
  });
  return postForm(url, secret, form, signing);
}

export interface BlockActionInput {
  actionId: string;
  /** A button's value. */
  value?: string;
  /** For a static select: the option picked (sent as `selected_option`, type "static_select"). */
  selectedOption?: { value: string; text?: string };
  blockId?: string;
  userId?: string;
  userName?: string;
  channelId?: string;
  /** The payload's `team.id`; in a Slack Connect channel, the clicking user's team. */
  teamId?: string;
  /** `user.team_id`; defaults to `teamId`. */
  userTeamId?: string;
  appId?: string;
  /** The ts of the bot message holding the control. */
  messageTs: string;
  /** When that message is in a thread. */
  threadTs?: string;
  /** The message's text and blocks, as Slack echoes them back. */
  messageText?: string;
  messageBlocks?: unknown[];
  /** Pass `fake.responseUrl({ channel, messageTs })` to record `respond()`. */
  responseUrl?: string;
  triggerId?: string;
  /** The action's `action_ts`; defaults to now. Pass the same one (and trigger id) to replay a click. */
  actionTs?: string;
}

/** Posts a `block_actions` interaction: form-encoded, the JSON in `payload`. */
export function sendBlockAction(
  url: string,
  secret: string,
  input: BlockActionInput,
  signing: SigningOptions = {},
): Promise<SlackRequestResult> {
  const payload = blockActionPayload(input);
  return postForm(url, secret, new URLSearchParams({ payload: JSON.stringify(payload) }), signing);
}

/** A `block_actions` payload as Slack sends it, over HTTP (in `payload=`) and Socket Mode alike. */
export function blockActionPayload(input: BlockActionInput): Record<string, unknown> {
  const teamId = input.teamId ?? FAKE_SLACK.teamId;
  const channelId = input.channelId ?? "C0GENERAL";
  const userId = input.userId ?? "U0HUMAN";
  const blockId = input.blockId ?? randomBytes(3).toString("hex");
  const action = input.selectedOption
    ? {
        type: "static_select",
        selected_option: {
          text: {
            type: "plain_text",
            text: input.selectedOption.text ?? input.selectedOption.value,
            emoji: true,
          },
          value: input.selectedOption.value,
        },
      }
    : {
        type: "button",
        text: { type: "plain_text", text: input.value ?? "", emoji: true },
        value: input.value,
      };
  return {
    type: "block_actions",
    user: {
      id: userId,
      username: input.userName ?? "human",
      name: input.userName ?? "human",
      team_id: input.userTeamId ?? teamId,
    },
    api_app_id: input.appId ?? FAKE_SLACK.appId,
    token: VERIFICATION_TOKEN,
    container: {
      type: "message",
      message_ts: input.messageTs,
      channel_id: channelId,
      is_ephemeral: false,
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    },
    trigger_id: input.triggerId ?? triggerId(),
    team: { id: teamId, domain: FAKE_SLACK.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: channelId, name: "general" },
    message: {
      type: "message",
      subtype: "bot_message",
      user: FAKE_SLACK.botUserId,
      bot_id: FAKE_SLACK.botId,
      app_id: FAKE_SLACK.appId,
      // The bot posted the message, so it carries the bot's own team.
      team: FAKE_SLACK.teamId,
      ts: input.messageTs,
      text: input.messageText ?? "",
      blocks: input.messageBlocks ?? [],
      ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    },
    state: { values: {} },
    response_url: input.responseUrl ?? UNREACHABLE_RESPONSE_URL,
    actions: [
      {
        action_id: input.actionId,
        block_id: blockId,
        ...action,
        action_ts: input.actionTs ?? `${(Date.now() / 1000).toFixed(6)}`,
      },
    ],
  };
}

/** Posts the `url_verification` handshake Slack sends when the request URL is set. */
export function sendUrlVerification(
  url: string,
  secret: string,
  challenge = randomBytes(16).toString("hex"),
  signing: SigningOptions = {},
): Promise<SlackRequestResult> {
  const body = JSON.stringify({ token: VERIFICATION_TOKEN, challenge, type: "url_verification" });
  return sendSigned(url, secret, body, "application/json", signing);
}

function postForm(
  url: string,
  secret: string,
  form: URLSearchParams,
  signing: SigningOptions,
): Promise<SlackRequestResult> {
  // Exactly this content type, no charset: Slack sends it so, and Bolt's
  // HTTPReceiver compares it with === before parsing the form.
  return sendSigned(url, secret, form.toString(), "application/x-www-form-urlencoded", signing);
}

/** Posts any raw body signed as Slack signs it, e.g. a stored fixture or a fuzzed payload. */
export async function sendSigned(
  url: string,
  secret: string,
  body: string,
  contentType: string,
  signing: SigningOptions,
  extraHeaders: Record<string, string> = {},
): Promise<SlackRequestResult> {
  const now = Math.floor(Date.now() / 1000);
  const timestamp = signing.timestamp ?? (signing.staleTimestamp ? now - 6 * 60 : now);
  const key = signing.badSignature ? `${secret}-but-wrong` : secret;
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": contentType,
      "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
      ...signSlackRequest(body, key, timestamp),
      ...extraHeaders,
    },
    body,
  });
  const text = await response.text();
  const isJson = response.headers.get("content-type")?.includes("application/json") ?? false;
  return { status: response.status, body: isJson && text ? JSON.parse(text) : text };
}

function triggerId(): string {
  return `${Date.now()}.${randomBytes(4).readUInt32BE()}.${randomBytes(16).toString("hex")}`;
}
