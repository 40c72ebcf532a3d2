import type { Attachment, ConversationAddress } from "../core/conversation.ts";
import type { Activity } from "../core/delivery/activity.ts";
import type { Channel, ChannelRuntime, WorkerParts } from "../ingress/channel.ts";
import type { ConversationDirectory, DirectoryEntry } from "../ports/directory.ts";
import type { FileSource } from "../ports/file-source.ts";
import type {
  DeliveryOptions,
  DeliveryTarget,
  DirectPerson,
  EditOptions,
  Outbound,
  OutgoingFile,
  PostOptions,
  StreamOptions,
} from "../ports/outbound.ts";

/**
 * What the bot knows of a platform before its SDK is imported: enough for
 * the worker's splitting and streaming and for `send_message`'s mentions,
 * which read these synchronously.
 */
export interface PlatformTraits {
  readonly platform: string;
  /** The SDK the channel's module imports, named when it fails to load. */
  readonly sdk: string;
  readonly maxLength: number;
  readonly canEdit: boolean;
  /**
   * How the platform shows what a turn is doing: `indicator`, its own
   * (Outbound.showActivity), at most once per `activityEveryMs`; `line`, a
   * status line of its own (Outbound.activityLine). Unset: typing only.
   */
  readonly activity?: "indicator" | "line";
  readonly activityEveryMs?: number;
  /** How a message mentions a user. */
  mention(user: string): string;
}

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
    this.outbound = lazyOutbound(traits, () => this.#channel());
    this.directory = lazyDirectory(traits, () => this.#channel());
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

function lazyOutbound(traits: PlatformTraits, channel: () => Promise<Channel>): Outbound {
  const outbound = async () => (await channel()).outbound;
  const files: FileSource = {
    locate: async (attachment: Attachment, signal: AbortSignal, address?: ConversationAddress) => {
      const source = (await outbound()).files;
      if (!source) {
        throw new ChannelLoadError(`The ${traits.platform} channel has no file source.`);
      }
      return source.locate(attachment, signal, address);
    },
  };
  return {
    maxLength: traits.maxLength,
    canEdit: traits.canEdit,
    files,
    post: async (target: DeliveryTarget, text: string, options: PostOptions) =>
      (await outbound()).post(target, text, options),
    edit: async (target: DeliveryTarget, ref: string, text: string, options?: EditOptions) =>
      (await outbound()).edit(target, ref, text, options),
    typing: async (target: DeliveryTarget) => (await outbound()).typing(target),
    ...(traits.activity === "indicator"
      ? {
          showActivity: async (target: DeliveryTarget, activity: Activity | undefined) =>
            (await outbound()).showActivity?.(target, activity),
        }
      : {}),
    ...(traits.activityEveryMs !== undefined ? { activityEveryMs: traits.activityEveryMs } : {}),
    ...(traits.activity === "line"
      ? {
          activityLine: true,
          remove: async (target: DeliveryTarget, ref: string) =>
            (await outbound()).remove?.(target, ref),
        }
      : {}),
    upload: async (target: DeliveryTarget, file: OutgoingFile, options: DeliveryOptions) => {
      const loaded = await outbound();
      if (!loaded.upload) {
        throw new ChannelLoadError(`The ${traits.platform} channel cannot upload files.`);
      }
      return loaded.upload(target, file, options);
    },
    postDirect: async (person: DirectPerson, text: string, options: DeliveryOptions) => {
      const loaded = await outbound();
      if (!loaded.postDirect) {
        throw new ChannelLoadError(
          `The ${traits.platform} channel cannot write to a person first.`,
        );
      }
      return loaded.postDirect(person, text, options);
    },
    // A platform without native streaming answers "does not apply" and is never asked to finish one.
    native: {
      open: async (target: DeliveryTarget, options: StreamOptions) =>
        (await outbound()).native?.open(target, options),
      finish: async (target: DeliveryTarget, ref: string, text: string, options: StreamOptions) =>
        (await outbound()).native?.finish(target, ref, text, options),
      find: async (target: DeliveryTarget, since: number, options: StreamOptions) =>
        (await outbound()).native?.find?.(target, since, options),
    },
  };
}

function lazyDirectory(
  traits: PlatformTraits,
  channel: () => Promise<Channel>,
): ConversationDirectory {
  const directory = async () => {
    const loaded = (await channel()).directory;
    if (!loaded) throw new ChannelLoadError(`The ${traits.platform} channel has no directory.`);
    return loaded;
  };
  return {
    find: async (workspace: string, ref: string) => (await directory()).find(workspace, ref),
    mayPost: async (workspace: string, entry: DirectoryEntry, user: string) =>
      (await directory()).mayPost(workspace, entry, user),
    mention: (user: string) => traits.mention(user),
  };
}
