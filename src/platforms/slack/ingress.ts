import type { App } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { isTooLong, tooLongReply } from "../../core/conversation.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import type { ChannelState } from "../../ingress/channel-state.ts";
import { takeMessage } from "../../ingress/take-message.ts";
import { InboundMessageError } from "../../ports/enqueue.ts";
import type { SlackAssistant } from "./assistant.ts";
import { registerSlackCommands } from "./commands.ts";
import type { SlackConfig } from "./config-section.ts";
import { registerSlackControls } from "./control-actions.ts";
import { asTakeError, describe, SlackEventInFlightError } from "./errors.ts";
import {
  normalizeSlackEvent,
  readMessageEvent,
  type SessionScope,
  type SlackMessageEvent,
} from "./normalize.ts";
import { installationTeam, messageEventId } from "./payload.ts";
import type { SlackPeople } from "./people.ts";
import { registerSharedSlackCommands } from "./shared-commands.ts";
import { NOTICE_METADATA } from "./stream.ts";

/** At most this many people mentioned in one message are looked up by name. */
const MAX_NAMED = 50;

/** Who the bot is, once `auth.test` (or the options) said. */
export interface SlackIdentity {
  readonly botUserId: string;
  readonly botId: string;
  readonly teamId: string;
  /** The account of `slack.accounts` this app is; unset for the only or default app. */
  readonly account?: string;
}

/** What taking Slack events needs from the channel. */
export interface SlackIngressDeps {
  readonly runtime: ChannelRuntime;
  readonly client: WebClient;
  readonly people: SlackPeople;
  /** The events taken and the threads the bot is in. */
  readonly state: ChannelState;
  readonly identity: SlackIdentity;
  /** The config's `slack:` section, read on every message. */
  readonly settings: () => SlackConfig;
  /** The assistant pane: which channel a pane thread's person is looking at, and its title. */
  readonly assistant?: SlackAssistant;
}

/**
 * Mentions, DMs and replies in threads the bot is in become messages on the
 * queue (before Slack gets its ack, so a failed enqueue is retried by Slack);
 * slash commands and their clicks are answered on the spot. Anything a
 * listener cannot do leaves the event to Slack to deliver again (errors.ts).
 */
export function registerSlackIngress(app: App, deps: SlackIngressDeps): void {
  app.event("app_mention", async ({ event, body }) => {
    const e = readMessageEvent(event);
    if (!e) return;
    try {
      await rememberThread(deps, e);
      await take(deps, e, body);
    } catch (error) {
      throw asTakeError(error);
    }
  });
  app.message(async ({ message, body }) => {
    const e = readMessageEvent(message);
    if (!e) return;
    try {
      if (await shouldAnswer(deps, e)) await take(deps, e, body);
    } catch (error) {
      throw asTakeError(error);
    }
  });
  const commandDeps = {
    runtime: deps.runtime,
    actor: (userId: string) => deps.people.actor(userId),
    teamId: () => deps.identity.teamId,
    ...(deps.identity.account ? { account: deps.identity.account } : {}),
    ledger: () => deps.state.events,
    name: (userId: string) => deps.people.name(userId),
  };
  registerSlackCommands(app, commandDeps);
  registerSharedSlackCommands(app, commandDeps);
  registerSlackControls(app, commandDeps);
}

/** DMs, and messages in threads the bot is part of; mentions come as app_mention. */
async function shouldAnswer(deps: SlackIngressDeps, e: SlackMessageEvent): Promise<boolean> {
  const { botId, botUserId } = deps.identity;
  if (e.bot_id && (e.bot_id === botId || !deps.settings().answerBots)) return false;
  if (e.user === botUserId) return false;
  if (e.channel_type === "im") return true;
  if (e.text?.includes(`<@${botUserId}>`)) return false; // the app_mention event answers it
  if (!e.thread_ts || !e.channel) return false;
  return deps.state.inThread(threadKey(deps, e.channel, e.thread_ts));
}

/**
 * Takes one message once: a retry, the app_mention twin of a message
 * event and a delivery to a second ingress process find it taken. One
 * over the text limit gets {@link tooLongReply}; a typed command is
 * answered in place; anything else goes on the queue.
 */
async function take(deps: SlackIngressDeps, e: SlackMessageEvent, body: unknown): Promise<void> {
  const options = {
    teamId: installationTeam(body, deps.identity.teamId),
    botUserId: deps.identity.botUserId,
    session: sessionOf(deps.settings(), e.channel),
    ...(deps.identity.account ? { account: deps.identity.account } : {}),
  };
  const probe = normalizeSlackEvent(e, options);
  if (!probe) return;
  const id = messageEventId(probe.channel, probe.messageRef ?? probe.eventId);
  const ledger = deps.state.events;
  const claim = await ledger.claim(id);
  if (claim === "done") return;
  if (claim === "taking") throw new SlackEventInFlightError(id);
  try {
    await handle(deps, e, options, isTooLong(probe.text) ? probe : undefined);
  } catch (error) {
    if (!(error instanceof InboundMessageError)) {
      await ledger.release(id).catch(() => {});
      throw asTakeError(error, id);
    }
    // The queue refused a field Slack never sends so (an id over 512 characters): no retry helps.
    deps.runtime.logger.warn("dropped a Slack message the queue refused", {
      error: describe(error),
    });
  }
  await ledger.done(id);
}

async function handle(
  deps: SlackIngressDeps,
  e: SlackMessageEvent,
  options: Parameters<typeof normalizeSlackEvent>[1],
  tooLong: ReturnType<typeof normalizeSlackEvent>,
): Promise<void> {
  const { runtime } = deps;
  // Names for the sender and those mentioned, so the model reads "@Ada", not "<@U0123>".
  const names = tooLong ? new Map<string, string>() : await namesIn(deps, e);
  const normalized = tooLong ?? normalizeSlackEvent(e, { ...options, names });
  if (!normalized) return;
  const message = deps.assistant ? await deps.assistant.prepare(normalized) : normalized;
  const reply = (text: string) =>
    deps.client.chat.postMessage({
      channel: message.channel,
      ...(message.thread ? { thread_ts: message.thread } : {}),
      text,
      metadata: NOTICE_METADATA,
    });
  await takeMessage(runtime, message, {
    actor: () => deps.people.actor(message.user),
    reply,
    claimed: true,
  });
  await deps.assistant?.titleOnce(message);
}

async function namesIn(deps: SlackIngressDeps, e: SlackMessageEvent): Promise<Map<string, string>> {
  const ids = new Set<string>(e.user ? [e.user] : []);
  for (const m of (e.text ?? "").matchAll(/<@([A-Z0-9]+)/g)) {
    if (ids.size >= MAX_NAMED) break;
    ids.add(m[1] as string);
  }
  ids.delete(deps.identity.botUserId);
  const names = new Map<string, string>();
  await Promise.all(
    [...ids].map(async (id) => {
      const name = await deps.people.name(id);
      if (name) names.set(id, name);
    }),
  );
  return names;
}

async function rememberThread(deps: SlackIngressDeps, e: SlackMessageEvent): Promise<void> {
  if (!e.channel || !e.ts) return;
  await deps.state.rememberThread(threadKey(deps, e.channel, e.thread_ts ?? e.ts));
}

function threadKey(deps: SlackIngressDeps, channel: string, thread: string): string {
  // Each app is in the threads it was in: another app of the same workspace is not.
  const platform = deps.identity.account ? `slack@${deps.identity.account}` : "slack";
  const where = { platform, workspace: deps.identity.teamId, channel };
  return deps.runtime.sources.store.keys.thread(where, thread);
}

/** One conversation per thread or per channel: the channel's own setting, else the default. */
function sessionOf(settings: SlackConfig, channel: string | undefined): SessionScope {
  return (channel && settings.channels[channel]?.session) || settings.session;
}
