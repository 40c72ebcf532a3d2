import type { Attachment, ConversationAddress } from "../core/conversation.ts";
import type { Activity } from "../core/delivery/activity.ts";
import type { Channel, ChannelRuntime, WorkerParts } from "../ingress/channel.ts";
import type { ConversationDirectory, DirectoryEntry } from "../ports/directory.ts";
import type { FileSource } from "../ports/file-source.ts";
import type {
  DeliveryOptions,
  DeliveryTarget,
  EditOptions,
  MessageControl,
  Outbound,
  OutgoingFile,
  PostOptions,
  StreamOptions,
} from "../ports/outbound.ts";
import type { PlatformTraits } from "./lazy-channel.ts";

/**
 * One bot account of a platform: a Slack app, a Discord bot, a Telegram
 * bot. `id` is what its messages carry as `account` on their address; the
 * platform's only (or default) account has none, so its keys are the ones
 * a bot had before accounts existed.
 */
export interface PlatformAccount {
  readonly id?: string;
  readonly channel: Channel;
}

/** An answer is for an account this bot does not run (it was removed from the config). */
export class AccountMissingError extends Error {
  override readonly name = "AccountMissingError";
}

/**
 * Several accounts of one platform as the one channel the bot runs for it:
 * each account's channel takes its own events (its own poller, webhook path
 * or gateway connection) and stamps its id on what it takes; the outbound
 * sends each answer through the account its conversation is with, which is
 * the `account` on the delivery target. One account alone is its channel,
 * unchanged.
 *
 * @example
 * const telegram = accountChannels(TELEGRAM_TRAITS, [
 *   { channel: telegramChannel({ token: main }) },
 *   { id: "sales", channel: telegramChannel({ token: sales, account: "sales" }) },
 * ]);
 */
export function accountChannels(
  traits: PlatformTraits,
  accounts: readonly PlatformAccount[],
): Channel {
  const [only] = accounts;
  if (accounts.length === 1 && only && only.id === undefined) return only.channel;
  if (!only) throw new AccountMissingError(`The ${traits.platform} channel has no account.`);
  return new AccountChannels(traits, accounts);
}

class AccountChannels implements Channel {
  readonly platform: string;
  readonly outbound: Outbound;
  readonly directory: ConversationDirectory;
  #started: Channel[] = [];

  constructor(
    traits: PlatformTraits,
    private readonly accounts: readonly PlatformAccount[],
  ) {
    this.platform = traits.platform;
    this.outbound = routedOutbound(traits, (account) => this.#channel(account).outbound);
    this.directory = routedDirectory(traits, () => this.#primary());
  }

  /** Starts every account in turn; when one fails, the ones started stop again. */
  async start(runtime: ChannelRuntime): Promise<void> {
    for (const { channel } of this.accounts) {
      try {
        await channel.start(runtime);
      } catch (error) {
        await this.stop();
        throw error;
      }
      this.#started.push(channel);
    }
  }

  async stop(): Promise<void> {
    const started = this.#started;
    this.#started = [];
    const stopped = await Promise.allSettled(started.map((channel) => channel.stop()));
    const failed = stopped.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
  }

  prepareWorker(parts: WorkerParts): void {
    for (const { channel } of this.accounts) channel.prepareWorker?.(parts);
  }

  countFailuresWith(count: (stage: string) => void): void {
    for (const { channel } of this.accounts) channel.countFailuresWith?.(count);
  }

  #channel(account: string | undefined): Channel {
    const found = this.accounts.find((a) => (a.id ?? undefined) === (account || undefined));
    if (found) return found.channel;
    const known = this.accounts.map((a) => a.id ?? "(default)").join(", ");
    throw new AccountMissingError(
      account
        ? `No ${this.platform} account ${JSON.stringify(account)} runs in this bot (it runs ${known}), so its conversation cannot be answered. Add it back under ${this.platform}.accounts, with its token.`
        : `This bot runs no default ${this.platform} account (only ${known}), so a conversation with it cannot be answered. Set its token in the environment again.`,
    );
  }

  /** What is not a conversation's (finding a channel by name): the default account, else the first. */
  #primary(): Channel {
    return (this.accounts.find((a) => a.id === undefined) ?? (this.accounts[0] as PlatformAccount))
      .channel;
  }
}

function routedOutbound(
  traits: PlatformTraits,
  outbound: (account: string | undefined) => Outbound,
): Outbound {
  const of = (target: ConversationAddress) => outbound(target.account);
  const files: FileSource = {
    locate: (attachment: Attachment, signal: AbortSignal, address?: ConversationAddress) => {
      const source = outbound(address?.account).files;
      if (!source) {
        return Promise.reject(
          new AccountMissingError(`The ${traits.platform} channel has no file source.`),
        );
      }
      return source.locate(attachment, signal, address);
    },
  };
  return {
    maxLength: traits.maxLength,
    canEdit: traits.canEdit,
    files,
    post: async (target: DeliveryTarget, text: string, options: PostOptions) =>
      of(target).post(target, text, options),
    edit: async (target: DeliveryTarget, ref: string, text: string, options?: EditOptions) =>
      of(target).edit(target, ref, text, options),
    typing: async (target: DeliveryTarget) => of(target).typing(target),
    ...(traits.activity === "indicator"
      ? {
          showActivity: async (target: DeliveryTarget, activity: Activity | undefined) =>
            of(target).showActivity?.(target, activity),
        }
      : {}),
    ...(traits.activityEveryMs !== undefined ? { activityEveryMs: traits.activityEveryMs } : {}),
    ...(traits.activity === "line"
      ? {
          activityLine: true,
          remove: async (target: DeliveryTarget, ref: string) => of(target).remove?.(target, ref),
        }
      : {}),
    upload: async (target: DeliveryTarget, file: OutgoingFile, options: DeliveryOptions) => {
      const chosen = of(target);
      if (!chosen.upload) {
        throw new AccountMissingError(`The ${traits.platform} channel cannot upload files.`);
      }
      return chosen.upload(target, file, options);
    },
    native: {
      open: async (target: DeliveryTarget, options: StreamOptions) =>
        of(target).native?.open(target, options),
      finish: async (
        target: DeliveryTarget,
        ref: string,
        text: string,
        options: StreamOptions,
        controls?: readonly MessageControl[],
      ) => of(target).native?.finish(target, ref, text, options, controls),
      find: async (target: DeliveryTarget, since: number, options: StreamOptions) =>
        of(target).native?.find?.(target, since, options),
    },
  };
}

function routedDirectory(traits: PlatformTraits, channel: () => Channel): ConversationDirectory {
  const directory = () => {
    const found = channel().directory;
    if (!found) throw new AccountMissingError(`The ${traits.platform} channel has no directory.`);
    return found;
  };
  return {
    find: async (workspace: string, ref: string) => directory().find(workspace, ref),
    mayPost: async (workspace: string, entry: DirectoryEntry, user: string) =>
      directory().mayPost(workspace, entry, user),
    mention: (user: string) => traits.mention(user),
  };
}
