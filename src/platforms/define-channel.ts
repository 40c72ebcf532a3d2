import type { Channel, ChannelRuntime, WorkerParts } from "../ingress/channel.ts";
import type { ConversationDirectory } from "../ports/directory.ts";
import type { Outbound } from "../ports/outbound.ts";

/** A platform's ingress for one run: built when the channel starts, dropped when it stops. */
export interface ChannelIngress {
  /** Starts taking the platform's events. Resolves once it is ready to ack them. */
  start(): Promise<void>;
  /** Stops taking events; events already acked are in the queue. */
  stop(): Promise<void>;
}

/** What a channel's ingress is built with. */
export interface IngressParts<Settings> {
  readonly settings: Settings;
  /** What the process gives every channel: the gate, the command sources, the queue behind them. */
  readonly runtime: ChannelRuntime;
  /** The channel's own outbound, for ingress that answers on the spot over the same API. */
  readonly outbound: Outbound;
}

/**
 * A platform, described once; {@link defineChannel} makes its factory.
 * The split follows what runs where: a worker-only process builds the
 * channel for `outbound` and `directory` alone and never builds `ingress`.
 */
export interface ChannelDefinition<Options, Settings = Options> {
  /**
   * The `platform` of the messages it produces, the key of its outbound and
   * the first part of its users' ids in `permissions:` (`memory:alice`).
   * Lowercase letters, digits, `-` and `_`.
   */
  readonly platform: string;
  /**
   * Checks the options once, when the channel is built, and turns them
   * into what the other parts read: throw an error that names the bad
   * option and the fix. Default: the options as given.
   */
  readonly settings?: (options: Options) => Settings;
  /** How a worker talks back to the platform (post, edit, typing), over its API. */
  readonly outbound: (settings: Settings) => Outbound;
  /** The platform's other conversations, for `send_message`; leave it out and that tool is off here. */
  readonly directory?: (settings: Settings) => ConversationDirectory;
  /** The platform's events in: each message through `takeMessage`, which gates, answers commands and queues. */
  readonly ingress: (parts: IngressParts<Settings>) => ChannelIngress;
  /**
   * What the outbound needs in a worker-only process, where `ingress` is
   * never built (a ledger of posts in Redis, a REST token): leave it out when
   * `outbound` is whole as built.
   */
  readonly prepareWorker?: (parts: WorkerParts & { readonly settings: Settings }) => void;
}

/** What {@link defineChannel} returns: a function from options to a {@link Channel}. */
export type ChannelFactory<Options> = ((options: Options) => Channel) & {
  readonly platform: string;
};

/** A platform name or a channel's lifecycle used the wrong way; the message says the fix. */
export class ChannelDefinitionError extends Error {
  override readonly name = "ChannelDefinitionError";
}

const PLATFORM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * Makes a channel factory from a platform's parts, so a fourth platform is
 * one definition and its own files, nothing else in Switchyard:
 *
 * 1. `outbound` puts the worker's answers on the platform: `post` returns
 *    the message's ref (and lands once per `idempotencyKey`), `edit`
 *    rewrites a message (streamed answers grow by edits when `canEdit`),
 *    and answers longer than `maxLength` arrive already split.
 * 2. `ingress` turns the platform's events into `InboundMessage`s and
 *    hands each to `takeMessage`, with who sent it (`Actor`: are they a
 *    workspace admin on the platform?) and how to reply in place. That one
 *    call lets the message through the access gate, answers `/tools`,
 *    `/skills` and the other chat commands (checking who may change which
 *    scope), and queues the rest for a worker. A repeat of an event
 *    (`eventId`) is answered once.
 * 3. Pass the factory's channel to `createBot({ channels: [...] })`.
 *
 * `test/contract/memory-channel.ts` is a whole platform written this way;
 * `test/contract/` runs it through the same contract tests as Slack,
 * Discord and Telegram.
 *
 * @example
 * import { createBot, defineChannel, takeMessage } from "switchyard";
 *
 * const webhookChannel = defineChannel({
 *   platform: "webhook",
 *   settings: (options: { url: string }) => ({ url: new URL(options.url) }),
 *   outbound: ({ url }) => ({
 *     maxLength: 4_000,
 *     canEdit: false,
 *     post: async (target, text, { idempotencyKey }) => {
 *       await fetch(url, { method: "POST", body: JSON.stringify({ to: target.conversation, text, idempotencyKey }) });
 *       return idempotencyKey;
 *     },
 *     edit: async () => {},
 *     typing: async () => {},
 *   }),
 *   ingress: ({ runtime }) => ({
 *     start: async () => {
 *       onIncoming((event) =>
 *         takeMessage(runtime, {
 *           platform: "webhook", workspace: "main", channel: event.room, conversation: event.room,
 *           user: event.from, text: event.text, attachments: [], eventId: event.id, time: Date.now(),
 *         }, {
 *           actor: { id: `webhook:${event.from}`, isPlatformAdmin: false },
 *           reply: (text) => sendTo(event.room, text),
 *         }),
 *       );
 *     },
 *     stop: async () => {},
 *   }),
 * });
 *
 * await createBot({ channels: [webhookChannel({ url: "https://chat.example.com/send" })] }).start();
 */
export function defineChannel<Options = void, Settings = Options>(
  definition: ChannelDefinition<Options, Settings>,
): ChannelFactory<Options> {
  const { platform } = definition;
  if (!PLATFORM_NAME.test(platform)) {
    throw new ChannelDefinitionError(
      `A channel's platform is a short lowercase name such as "matrix" (letters, digits, - and _), not ${JSON.stringify(platform)}: it is the first part of its users' ids in permissions:, as in "matrix:alice".`,
    );
  }
  const factory = (options: Options): Channel => {
    const settings = definition.settings
      ? definition.settings(options)
      : (options as unknown as Settings);
    return new DefinedChannel(definition, settings);
  };
  return Object.assign(factory, { platform });
}

class DefinedChannel<Options, Settings> implements Channel {
  readonly platform: string;
  readonly outbound: Outbound;
  readonly directory?: ConversationDirectory;
  #ingress: ChannelIngress | undefined;

  constructor(
    private readonly definition: ChannelDefinition<Options, Settings>,
    private readonly settings: Settings,
  ) {
    this.platform = definition.platform;
    this.outbound = definition.outbound(settings);
    if (definition.directory) this.directory = definition.directory(settings);
  }

  async start(runtime: ChannelRuntime): Promise<void> {
    if (this.#ingress) {
      throw new ChannelDefinitionError(
        `The ${this.platform} channel is started already: stop it before starting it again, or build a second one with its factory.`,
      );
    }
    const ingress = this.definition.ingress({
      settings: this.settings,
      runtime,
      outbound: this.outbound,
    });
    this.#ingress = ingress;
    try {
      await ingress.start();
    } catch (error) {
      this.#ingress = undefined;
      throw error;
    }
  }

  prepareWorker(parts: WorkerParts): void {
    this.definition.prepareWorker?.({ ...parts, settings: this.settings });
  }

  async stop(): Promise<void> {
    const ingress = this.#ingress;
    this.#ingress = undefined;
    await ingress?.stop();
  }
}
