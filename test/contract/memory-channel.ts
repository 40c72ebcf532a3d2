/**
 * A fourth platform, written as a bot author outside this repository would
 * write one: it imports from Switchyard's public API (src/index.ts) alone.
 *
 * `MemoryChat` is the platform itself, a chat service that happens to live
 * in memory: rooms, people (some of them admins), messages the bot posts and
 * edits, and at-least-once delivery of events, so the same event can arrive
 * twice. `memoryChannel` is the adapter: one `defineChannel` call.
 */
import {
  type Actor,
  type DeliveryTarget,
  defineChannel,
  type InboundMessage,
  type Outbound,
  takeMessage,
} from "../../src/index.ts";

/** A message in a room, as the chat service keeps it: the latest text, and how often it was edited. */
export interface ChatMessage {
  readonly ref: string;
  readonly room: string;
  /** A person's id, or `bot`. */
  readonly from: string;
  text: string;
  edits: number;
  /** The message it answers. */
  readonly replyTo?: string;
}

/** What the service delivers to the bot for a person's message; a redelivery is the same object. */
export interface ChatEvent {
  readonly id: string;
  readonly message: ChatMessage;
}

type Listener = (event: ChatEvent) => Promise<void>;

/** The in-memory chat service. */
export class MemoryChat {
  readonly messages: ChatMessage[] = [];
  readonly #admins: ReadonlySet<string>;
  /** Posts by the client's idempotency key: a retried send lands once, as a real API's nonce does. */
  readonly #byKey = new Map<string, string>();
  #listener: Listener | undefined;
  #next = 0;

  constructor(options: { admins?: readonly string[] } = {}) {
    this.#admins = new Set(options.admins ?? []);
  }

  /** A person writes in a room; resolves once the bot's ingress has taken the event. */
  async say(from: string, room: string, text: string): Promise<ChatEvent> {
    const message = this.#store({ room, from, text });
    const event = { id: `ev-${message.ref}`, message };
    await this.#deliver(event);
    return event;
  }

  /** The service delivers an event again, as when the bot's ack was lost. */
  redeliver(event: ChatEvent): Promise<void> {
    return this.#deliver(event);
  }

  isAdmin(user: string): boolean {
    return this.#admins.has(user);
  }

  /** The bot's messages in a room, oldest first, each as last edited. */
  botMessages(room: string): ChatMessage[] {
    return this.messages.filter((m) => m.room === room && m.from === "bot");
  }

  /** The bot's API: posts a message, once per key. */
  post(room: string, text: string, options: { replyTo?: string; key?: string } = {}): string {
    const known = options.key === undefined ? undefined : this.#byKey.get(options.key);
    if (known !== undefined) return known;
    const { ref } = this.#store({
      room,
      from: "bot",
      text,
      ...(options.replyTo ? { replyTo: options.replyTo } : {}),
    });
    if (options.key !== undefined) this.#byKey.set(options.key, ref);
    return ref;
  }

  /** The bot's API: rewrites one of its messages. */
  edit(ref: string, text: string): void {
    const message = this.messages.find((m) => m.ref === ref && m.from === "bot");
    if (!message) throw new Error(`memory chat: no bot message ${ref} to edit`);
    message.text = text;
    message.edits += 1;
  }

  /** The bot's API: where events go; returns how to stop listening. */
  listen(listener: Listener): () => void {
    this.#listener = listener;
    return () => {
      if (this.#listener === listener) this.#listener = undefined;
    };
  }

  #store(fields: Omit<ChatMessage, "ref" | "edits">): ChatMessage {
    this.#next += 1;
    const message = { ...fields, ref: String(this.#next), edits: 0 };
    this.messages.push(message);
    return message;
  }

  async #deliver(event: ChatEvent): Promise<void> {
    await this.#listener?.(event);
  }
}

export interface MemoryChannelOptions {
  readonly chat: MemoryChat;
  /** The longest message the service takes; longer answers arrive split. Default 2,000. */
  readonly maxLength?: number;
  /** The workspace every room belongs to. Default `team`. */
  readonly workspace?: string;
}

/** A setting the memory channel cannot work with; the message names it. */
export class MemoryChannelError extends Error {
  override readonly name = "MemoryChannelError";
}

const PLATFORM = "memory";

/**
 * The adapter. `outbound` is what a worker needs; `ingress` turns each
 * event into an InboundMessage (the event's id is its `eventId`, so a
 * redelivery is known) and hands it to `takeMessage` with who sent it.
 *
 * @example
 * const chat = new MemoryChat({ admins: ["ada"] });
 * const bot = createBot({ channels: [memoryChannel({ chat })] });
 * await bot.start();
 * await chat.say("alice", "general", "hello");
 */
export const memoryChannel = defineChannel({
  platform: PLATFORM,
  settings: (options: MemoryChannelOptions) => {
    const maxLength = options.maxLength ?? 2_000;
    if (!Number.isInteger(maxLength) || maxLength < 100) {
      throw new MemoryChannelError(
        `maxLength is the longest message the chat takes, a whole number of at least 100, not ${maxLength}.`,
      );
    }
    return { chat: options.chat, maxLength, workspace: options.workspace ?? "team" };
  },
  outbound: ({ chat, maxLength }): Outbound => ({
    maxLength,
    canEdit: true,
    post: async (target: DeliveryTarget, text, { idempotencyKey }) =>
      chat.post(target.channel, text, {
        key: idempotencyKey,
        ...(target.replyTo ? { replyTo: target.replyTo } : {}),
      }),
    edit: async (_target, ref, text) => chat.edit(ref, text),
    typing: async () => {},
  }),
  ingress: ({ settings: { chat, workspace }, runtime }) => {
    let unlisten: (() => void) | undefined;
    return {
      start: async () => {
        unlisten = chat.listen(async ({ id, message }) => {
          const inbound: InboundMessage = {
            platform: PLATFORM,
            workspace,
            channel: message.room,
            conversation: message.room,
            user: message.from,
            kind: "group",
            text: message.text,
            attachments: [],
            eventId: id,
            messageRef: message.ref,
            time: Date.now(),
          };
          const actor: Actor = {
            id: `${PLATFORM}:${message.from}`,
            isPlatformAdmin: chat.isAdmin(message.from),
          };
          await takeMessage(runtime, inbound, {
            actor,
            reply: async (text) => chat.post(message.room, text, { replyTo: message.ref }),
          });
        });
      },
      stop: async () => unlisten?.(),
    };
  },
});
