import type { DeliveryTarget, Outbound, PostOptions } from "../ports/outbound.ts";
import type { PlatformTraits } from "./lazy-channel.ts";

/**
 * What the outbound of every platform shares: its limits are the platform's
 * traits (the same the channel shows before its SDK loads, see
 * lazy-channel.ts), so a platform's message length is written once; and it
 * posts, edits and shows typing over the platform's REST API, as
 * {@link Outbound} asks.
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

  abstract post(target: DeliveryTarget, text: string, options: PostOptions): Promise<string>;
  abstract edit(target: DeliveryTarget, ref: string, text: string): Promise<void>;
  abstract typing(target: DeliveryTarget): Promise<void>;
}
