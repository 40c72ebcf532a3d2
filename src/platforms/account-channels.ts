import type { ConversationAddress } from "../core/conversation.ts";
import type { Channel, ChannelRuntime, WorkerParts } from "../ingress/channel.ts";
import type { ConversationDirectory } from "../ports/directory.ts";
import type { Outbound } from "../ports/outbound.ts";
import { forwardDirectory, forwardOutbound } from "./forwarding.ts";
import type { PlatformTraits } from "./platform-traits.ts";

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
    const forwarding = {
      traits,
      outbound: async (address?: ConversationAddress) => this.#channel(address?.account).outbound,
      // A person to write to first names no account.
      direct: false,
      unavailable: AccountMissingError,
    };
    this.outbound = forwardOutbound(forwarding);
    this.directory = forwardDirectory(forwarding, async () => this.#primary().directory);
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
