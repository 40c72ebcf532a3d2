import type { Attachment, ConversationAddress } from "../core/conversation.ts";
import type { Activity } from "../core/delivery/activity.ts";
import type { ConversationDirectory, DirectoryEntry } from "../ports/directory.ts";
import type { FileSource } from "../ports/file-source.ts";
import type {
  DeliveryOptions,
  DeliveryTarget,
  DirectPerson,
  EditOptions,
  MessageControl,
  Outbound,
  OutgoingFile,
  PostOptions,
  StreamOptions,
} from "../ports/outbound.ts";
import type { PlatformTraits } from "./platform-traits.ts";

/** Where a forwarding outbound or directory finds the one that does the work. */
export interface Forwarding {
  readonly traits: PlatformTraits;
  /** The outbound that serves `address`; unset: the one for what is no conversation's. */
  readonly outbound: (address?: ConversationAddress) => Promise<Outbound>;
  /** Whether to forward `postDirect`: a person names no account, so only one outbound can. */
  readonly direct: boolean;
  /** What is thrown for a call the outbound found cannot serve. */
  readonly unavailable: new (
    message: string,
  ) => Error;
}

/**
 * An outbound that hands every call to the one `outbound` finds when the
 * call comes: a lazy channel's, waiting for its SDK to load the first time
 * (lazy-channel.ts), or that of the account a conversation is with
 * (account-channels.ts). Its limits and indicators are the platform's
 * traits, which need nothing loaded.
 */
export function forwardOutbound({ traits, outbound, direct, unavailable }: Forwarding): Outbound {
  const files: FileSource = {
    locate: async (attachment: Attachment, signal: AbortSignal, address?: ConversationAddress) => {
      const source = (await outbound(address)).files;
      if (!source) throw new unavailable(`The ${traits.platform} channel has no file source.`);
      return source.locate(attachment, signal, address);
    },
  };
  return {
    maxLength: traits.maxLength,
    canEdit: traits.canEdit,
    files,
    post: async (target: DeliveryTarget, text: string, options: PostOptions) =>
      (await outbound(target)).post(target, text, options),
    edit: async (target: DeliveryTarget, ref: string, text: string, options?: EditOptions) =>
      (await outbound(target)).edit(target, ref, text, options),
    typing: async (target: DeliveryTarget) => (await outbound(target)).typing(target),
    ...(traits.activity === "indicator"
      ? {
          showActivity: async (target: DeliveryTarget, activity: Activity | undefined) =>
            (await outbound(target)).showActivity?.(target, activity),
        }
      : {}),
    ...(traits.activityEveryMs !== undefined ? { activityEveryMs: traits.activityEveryMs } : {}),
    ...(traits.activity === "line"
      ? {
          activityLine: true,
          remove: async (target: DeliveryTarget, ref: string) =>
            (await outbound(target)).remove?.(target, ref),
        }
      : {}),
    upload: async (target: DeliveryTarget, file: OutgoingFile, options: DeliveryOptions) => {
      const found = await outbound(target);
      if (!found.upload) {
        throw new unavailable(`The ${traits.platform} channel cannot upload files.`);
      }
      return found.upload(target, file, options);
    },
    ...(direct
      ? {
          postDirect: async (person: DirectPerson, text: string, options: DeliveryOptions) => {
            const found = await outbound();
            if (!found.postDirect) {
              throw new unavailable(
                `The ${traits.platform} channel cannot write to a person first.`,
              );
            }
            return found.postDirect(person, text, options);
          },
        }
      : {}),
    // A platform without native streaming answers "does not apply" and is never asked to finish one.
    native: {
      open: async (target: DeliveryTarget, options: StreamOptions) =>
        (await outbound(target)).native?.open(target, options),
      finish: async (
        target: DeliveryTarget,
        ref: string,
        text: string,
        options: StreamOptions,
        controls?: readonly MessageControl[],
      ) => (await outbound(target)).native?.finish(target, ref, text, options, controls),
      find: async (target: DeliveryTarget, since: number, options: StreamOptions) =>
        (await outbound(target)).native?.find?.(target, since, options),
    },
  };
}

/** A directory that hands every call to the one `directory` finds when the call comes (see {@link forwardOutbound}). */
export function forwardDirectory(
  { traits, unavailable }: Pick<Forwarding, "traits" | "unavailable">,
  directory: () => Promise<ConversationDirectory | undefined>,
): ConversationDirectory {
  const found = async () => {
    const loaded = await directory();
    if (!loaded) throw new unavailable(`The ${traits.platform} channel has no directory.`);
    return loaded;
  };
  return {
    find: async (workspace: string, ref: string) => (await found()).find(workspace, ref),
    mayPost: async (workspace: string, entry: DirectoryEntry, user: string) =>
      (await found()).mayPost(workspace, entry, user),
    mention: (user: string) => traits.mention(user),
  };
}
