import type {
  DeliveryOptions,
  DeliveryTarget,
  DirectPerson,
  EditOptions,
  Outbound,
  PostOptions,
} from "../ports/outbound.ts";
import type { PlatformTraits } from "./platform-traits.ts";

/**
 * What the outbound of every platform shares: its limits are the platform's
 * traits (the same the channel shows before its SDK loads, see
 * lazy-channel.ts), so a platform's message length is written once; and it
 * posts, edits and shows typing over the platform's REST API, as
 * {@link Outbound} asks. A post or edit into a target the platform says is
 * gone throws `TargetGoneError`, options left unset mean the same on every
 * platform, and a post to a person goes to their direct conversation with
 * the bot: each platform says only how it sends and edits, how it tells a
 * gone target, and where a person's direct conversation is.
 */
export abstract class PlatformOutbound implements Outbound {
  readonly maxLength: number;
  readonly canEdit: boolean;
  readonly activityEveryMs: number | undefined;
  readonly activityLine: boolean;

  constructor(
    traits: Pick<PlatformTraits, "maxLength" | "canEdit" | "activity" | "activityEveryMs">,
  ) {
    this.maxLength = traits.maxLength;
    this.canEdit = traits.canEdit;
    this.activityEveryMs = traits.activityEveryMs;
    this.activityLine = traits.activity === "line";
  }

  /** Posts into the target; a target the platform says is gone throws `TargetGoneError`. */
  async post(target: DeliveryTarget, text: string, options: PostOptions): Promise<string> {
    const posting: Posting = {
      idempotencyKey: options.idempotencyKey,
      mayExist: options.mayExist ?? false,
      preview: options.preview ?? false,
      controls: options.controls ?? [],
    };
    try {
      return await this.send(target, text, posting);
    } catch (error) {
      throw this.gone(error, target);
    }
  }

  /** Replaces the message's text; a target the platform says is gone throws `TargetGoneError`. */
  async edit(
    target: DeliveryTarget,
    ref: string,
    text: string,
    options: EditOptions = {},
  ): Promise<void> {
    const editing: Editing = { controls: options.controls ?? [], final: options.final ?? false };
    try {
      await this.replace(target, ref, text, editing);
    } catch (error) {
      throw this.gone(error, target);
    }
  }

  /** Posts in the person's direct conversation with the bot (see {@link directTarget}). */
  async postDirect(person: DirectPerson, text: string, options: DeliveryOptions): Promise<string> {
    return this.post(await this.directTarget(person), text, options);
  }

  /** Sends one post, as {@link Outbound.post} says. */
  protected abstract send(target: DeliveryTarget, text: string, posting: Posting): Promise<string>;

  /** Replaces one message's text, as {@link Outbound.edit} says. */
  protected abstract replace(
    target: DeliveryTarget,
    ref: string,
    text: string,
    editing: Editing,
  ): Promise<void>;

  /** `error` as a `TargetGoneError` when the platform says `target` is gone for the bot; else `error` itself. */
  protected abstract gone(error: unknown, target: DeliveryTarget): unknown;

  /** Where the person's direct conversation with the bot is, opened when there is none yet. */
  protected abstract directTarget(person: DirectPerson): Promise<DeliveryTarget>;

  abstract typing(target: DeliveryTarget): Promise<void>;
}

/** A post's options as {@link PlatformOutbound.send} gets them: unset ones filled in (no buttons, not a preview, not a retry). */
export type Posting = Required<PostOptions>;

/** An edit's options as {@link PlatformOutbound.replace} gets them: no buttons and not final when unset. */
export type Editing = Required<EditOptions>;
