import {
  type Actor,
  type DeliveryTarget,
  defineChannel,
  type InboundMessage,
  takeMessage,
} from "switchyard";

/**
 * A chat service of our own that happens to live in memory: people write to
 * the bot in direct messages, and `ask` resolves with the bot's next message
 * to them, whether the worker's answer or a reply given on the spot (a
 * command's, or a refusal such as a stranger's pairing code).
 */
export class MemoryChat {
  readonly #waiting = new Map<string, (text: string) => void>();
  #listener: ((from: string, text: string, id: string) => Promise<void>) | undefined;
  #next = 0;

  /** A person writes to the bot; resolves with the bot's next message to them. */
  async ask(from: string, text: string): Promise<string> {
    if (this.#listener === undefined) throw new Error("Start the bot before asking it anything.");
    const answer = new Promise<string>((resolve) => this.#waiting.set(from, resolve));
    this.#next += 1;
    await this.#listener(from, text, `event-${this.#next}`);
    return answer;
  }

  /** The bot's API: a message to a person. Returns the message's id. */
  post(to: string, text: string): string {
    this.#waiting.get(to)?.(text);
    this.#waiting.delete(to);
    this.#next += 1;
    return `message-${this.#next}`;
  }

  /** The bot's API: where people's messages go. */
  listen(listener: (from: string, text: string, id: string) => Promise<void>): () => void {
    this.#listener = listener;
    return () => {
      this.#listener = undefined;
    };
  }
}

/**
 * The channel: one `defineChannel` call. `outbound` is how a worker answers;
 * `ingress` hands every message to `takeMessage`, which runs the access gate
 * (a stranger under `access.dm: pairing` gets a code, not the model), the
 * chat commands (`/tools`, `/access approve CODE`...) with their permission
 * checks, and the limits, before it queues the message for a worker.
 * Never put a message in the queue yourself: that skips all of them.
 */
export const memoryChatChannel = defineChannel({
  platform: "memory",
  settings: (options: { chat: MemoryChat }) => options,
  outbound: ({ chat }) => ({
    maxLength: 4_000,
    canEdit: false,
    post: async (target: DeliveryTarget, text: string) => chat.post(target.conversation, text),
    edit: async () => {},
    typing: async () => {},
  }),
  ingress: ({ settings: { chat }, runtime }) => {
    let unlisten: (() => void) | undefined;
    return {
      start: async () => {
        unlisten = chat.listen(async (from, text, id) => {
          const message: InboundMessage = {
            platform: "memory",
            workspace: "demo",
            channel: from,
            conversation: from,
            user: from,
            kind: "dm",
            text,
            attachments: [],
            eventId: id,
            time: Date.now(),
          };
          const actor: Actor = { id: `memory:${from}`, isPlatformAdmin: false };
          await takeMessage(runtime, message, {
            actor,
            reply: async (answer) => chat.post(from, answer),
          });
        });
      },
      stop: async () => unlisten?.(),
    };
  },
});
