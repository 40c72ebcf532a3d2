import type { Channel, ChannelRuntime, WorkerParts } from "../ingress/channel.ts";
import type { ConversationDirectory } from "../ports/directory.ts";
import type { Outbound } from "../ports/outbound.ts";
import { forwardDirectory, forwardOutbound } from "./forwarding.ts";
import type { PlatformTraits } from "./platform-traits.ts";

/** A platform channel's module (its SDK among its imports) could not be loaded. */
export class ChannelLoadError extends Error {
  override readonly name = "ChannelLoadError";
}

/**
 * A platform channel built now and loaded later: `slackChannel()` and its
 * siblings return one, so importing `switchyard` never imports @slack/bolt,
 * discord.js or grammY (discord.js alone takes about 0.3 s). The channel's
 * module is imported when the bot starts it, or when a worker readies its
 * outbound; the outbound and directory forward every call to the loaded
 * channel, waiting for it the first time. factories.ts builds the three
 * platforms' channels with it, each `load` a dynamic import of the
 * platform's channel.ts.
 */
export function lazyChannel(traits: PlatformTraits, load: () => Promise<Channel>): Channel {
  return new LazyChannel(traits, load);
}

class LazyChannel implements Channel {
  readonly platform: string;
  readonly outbound: Outbound;
  readonly directory: ConversationDirectory;
  #loading: Promise<Channel> | undefined;
  #loaded: Channel | undefined;
  #count: ((stage: string) => void) | undefined;
  #worker: WorkerParts | undefined;

  constructor(
    private readonly traits: PlatformTraits,
    private readonly load: () => Promise<Channel>,
  ) {
    this.platform = traits.platform;
    const forwarding = {
      traits,
      outbound: async () => (await this.#channel()).outbound,
      direct: true,
      unavailable: ChannelLoadError,
    };
    this.outbound = forwardOutbound(forwarding);
    this.directory = forwardDirectory(forwarding, async () => (await this.#channel()).directory);
  }

  async start(runtime: ChannelRuntime): Promise<void> {
    await (await this.#channel()).start(runtime);
  }

  async stop(): Promise<void> {
    // A channel never loaded never started; one that failed to load has nothing to stop.
    const channel = await this.#loading?.catch(() => undefined);
    await channel?.stop();
  }

  prepareWorker(parts: WorkerParts): void {
    this.#worker = parts;
    if (this.#loaded) {
      this.#loaded.prepareWorker?.(parts);
      return;
    }
    // Loaded now rather than at the first turn; a failure is logged here and thrown at each use.
    this.#channel().catch((error: unknown) =>
      parts.logger.warn((error as Error).message, { platform: this.platform }),
    );
  }

  countFailuresWith(count: (stage: string) => void): void {
    this.#count = count;
    this.#loaded?.countFailuresWith?.(count);
  }

  #channel(): Promise<Channel> {
    this.#loading ??= this.#load();
    return this.#loading;
  }

  async #load(): Promise<Channel> {
    let channel: Channel;
    try {
      channel = await this.load();
    } catch (error) {
      this.#loading = undefined; // the next use tries again
      throw new ChannelLoadError(
        `The ${this.platform} channel could not be loaded (it needs ${this.traits.sdk}): ${(error as Error)?.message ?? String(error)}. Reinstall the bot's dependencies (npm install) and check that ${this.traits.sdk} installed.`,
        { cause: error },
      );
    }
    // What the bot told the channel before it was loaded, in the order it did.
    if (this.#count) channel.countFailuresWith?.(this.#count);
    if (this.#worker) channel.prepareWorker?.(this.#worker);
    this.#loaded = channel;
    return channel;
  }
}
