import type { App } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import type { InboundMessage } from "../../core/conversation.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import { readConversationState, resolveConversationSkills } from "../../turn/contract.ts";
import { type AssistantThreadEvent, readAssistantThreadEvent } from "./assistant-event.ts";
import { cut, suggestedPrompts } from "./assistant-prompts.ts";
import {
  type AssistantThread,
  type AssistantThreadRef,
  AssistantThreads,
} from "./assistant-threads.ts";
import { SlackChannelNames } from "./channel-names.ts";
import type { SlackConfig } from "./config-section.ts";
import { describe } from "./errors.ts";
import { installationTeam } from "./payload.ts";

/** A pane thread's title: the first message's first line, this long at most. */
const TITLE_CHARS = 60;

export interface SlackAssistantDeps {
  readonly runtime: ChannelRuntime;
  readonly client: WebClient;
  /** The installation's team: the workspace every conversation of this app is in. */
  readonly teamId: () => string;
  readonly settings: () => SlackConfig;
}

/**
 * Slack's assistant pane: a split view where a person talks with the bot in
 * a thread of its DM while looking at some channel. When a thread starts,
 * the bot stores what the person is looking at and offers suggested prompts
 * (configured per channel and workspace, else one per enabled skill); when
 * they look elsewhere (`assistant_thread_context_changed`) it stores that.
 * A message in the thread is an ordinary DM-thread message to ingress.ts;
 * {@link SlackAssistant.prepare} tells it which channel the person is
 * viewing and {@link SlackAssistant.titleOnce} names the thread after its
 * first message.
 *
 * Bolt's own `Assistant` class is not used: it takes every message of a DM
 * thread for itself, past the ingress every other message takes (the event
 * ledger, the access gate, the queue), and keeps the context in message
 * metadata, read back with `conversations.history`.
 */
export class SlackAssistant {
  readonly threads: AssistantThreads;
  readonly #names: SlackChannelNames;

  constructor(private readonly deps: SlackAssistantDeps) {
    this.threads = new AssistantThreads(deps.runtime.redis, deps.runtime.sources.store.keys);
    this.#names = new SlackChannelNames(deps.client);
  }

  /** Listens for the pane's two events. Events of a shape Slack never sends are acked and dropped. */
  register(app: App): void {
    const on = async ({ event, body }: { event: unknown; body: unknown }) => {
      const e = readAssistantThreadEvent(event);
      if (e) await this.#onEvent(e, installationTeam(body, this.deps.teamId()));
    };
    app.event("assistant_thread_started", on);
    app.event("assistant_thread_context_changed", on);
  }

  /**
   * The message with what the pane says about where the person is, when it
   * was written in a pane thread the bot heard start: `platformContext`
   * names the channel they are looking at. Any other message is returned as it is.
   */
  async prepare(message: InboundMessage): Promise<InboundMessage> {
    const thread = await this.#paneThread(message);
    const note = thread ? viewingNote(thread) : undefined;
    return note ? { ...message, platformContext: note } : message;
  }

  /**
   * Titles a pane thread after the first message taken in it, once per
   * thread on any number of ingress processes. Best effort: the pane keeps
   * Slack's own title when this fails.
   */
  async titleOnce(message: InboundMessage): Promise<void> {
    if (message.text === "") return;
    try {
      const ref = paneRef(message);
      if (!ref || !(await this.threads.read(ref))) return;
      if (!(await this.threads.claimTitle(ref))) return;
      await this.deps.client.assistant.threads.setTitle({
        channel_id: ref.channel,
        thread_ts: ref.thread,
        title: threadTitle(message.text),
      });
    } catch (error) {
      this.deps.runtime.logger.warn("could not title a Slack assistant thread", {
        error: describe(error),
      });
    }
  }

  async #paneThread(message: InboundMessage): Promise<AssistantThread | undefined> {
    const ref = paneRef(message);
    return ref ? this.threads.read(ref) : undefined;
  }

  async #onEvent(e: AssistantThreadEvent, workspace: string): Promise<void> {
    const ref = { workspace, channel: e.channel, thread: e.thread };
    const channelName = e.context.channel ? await this.#names.name(e.context.channel) : undefined;
    const thread = { user: e.user, context: e.context, ...(channelName ? { channelName } : {}) };
    await this.threads.save(ref, thread, e.eventTs);
    if (e.type === "assistant_thread_started") await this.#offerPrompts(e, workspace);
  }

  /** Sets the thread's suggested prompts; a refusal is logged, not retried (the pane works without). */
  async #offerPrompts(e: AssistantThreadEvent, workspace: string): Promise<void> {
    try {
      const skills = await this.#skills(workspace, e);
      const set = suggestedPrompts(
        this.deps.settings().assistant,
        {
          workspace: e.context.team ?? workspace,
          ...(e.context.channel ? { channel: e.context.channel } : {}),
        },
        skills,
      );
      await this.deps.client.assistant.threads.setSuggestedPrompts({
        channel_id: e.channel,
        thread_ts: e.thread,
        prompts: [...set.prompts],
        ...(set.title ? { title: set.title } : {}),
      });
    } catch (error) {
      this.deps.runtime.logger.warn("could not set a Slack assistant thread's suggested prompts", {
        error: describe(error),
      });
    }
  }

  /** The skills on in the pane thread's conversation, as its first turn would see them. */
  async #skills(workspace: string, e: AssistantThreadEvent) {
    const sources = this.deps.runtime.sources;
    const address = {
      platform: "slack",
      workspace,
      channel: e.channel,
      conversation: `${e.channel}:${e.thread}`,
    };
    const state = await readConversationState(sources, address);
    return resolveConversationSkills(sources, address, state).enabled;
  }
}

/** Where a message would be in a pane thread: only a DM's threads can be one. */
function paneRef(message: InboundMessage): AssistantThreadRef | undefined {
  if (message.kind !== "dm" || !message.thread) return undefined;
  return { workspace: message.workspace, channel: message.channel, thread: message.thread };
}

/** What the model is told about where the person is; undefined when the pane names no channel. */
export function viewingNote(thread: AssistantThread): string | undefined {
  const channel = thread.context.channel;
  if (!channel) return undefined;
  const named = thread.channelName ? `#${thread.channelName} (${channel})` : channel;
  return `Slack assistant pane: the person is looking at channel ${named} while writing this.`;
}

/** A thread's title from its first message: the first line, whitespace collapsed, cut at a word. */
export function threadTitle(text: string): string {
  const line =
    text
      .split("\n")
      .map((l) => l.replace(/\s+/g, " ").trim())
      .find((l) => l !== "") ?? "";
  return cut(line, TITLE_CHARS) || "New chat";
}
