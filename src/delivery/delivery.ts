import type { Checkpoint, ToolFileRecord } from "../core/agent/checkpoint.ts";
import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";
import type { Activity } from "../core/delivery/activity.ts";
import { splitMessage } from "../core/delivery/split.ts";
import { noteDelivery, traceDelivery } from "../observability/tracing-turn.ts";
import type { DeliveryTarget, MessageControl } from "../ports/outbound.ts";
import type { RatedTurn } from "../store/feedback-store.ts";
import type { DeliveryEnvironment } from "./delivery-environment.ts";
import { answerText, fileKey, sendFile } from "./file-delivery.ts";
import { rateAnswer } from "./rating.ts";

/** Where a turn's answer goes: the conversation, in the thread of the last message, replying to it. */
export function targetOf(
  address: ConversationAddress,
  last: InboundMessage | undefined,
): DeliveryTarget {
  return {
    ...address,
    ...(last?.thread ? { thread: last.thread } : {}),
    ...(last?.messageRef ? { replyTo: last.messageRef } : {}),
  };
}

/** How the answer was shown so far and what goes with it. */
export interface Shown {
  readonly streamRef?: string | undefined;
  /** Ends a native stream (see TurnStream.finish): the first part finishes it instead of an edit. */
  readonly finishStream?:
    | ((text: string, controls?: readonly MessageControl[]) => Promise<void>)
    | undefined;
  readonly resumed: boolean;
  /** Files the turn's tools made, sent after the text (see Checkpoint.files). */
  readonly files?: readonly ToolFileRecord[] | undefined;
  /** Told before each file goes up, for the platform's indicator (see TurnStatus.show). */
  readonly activity?: (activity: Activity) => void;
  /**
   * Set for a final answer people may rate: its last text part gets 👍 / 👎
   * (see rating.ts). Unset: a cut-short note, an error, no buttons.
   */
  readonly rated?: Omit<RatedTurn, "turnId"> | undefined;
}

/**
 * Posts the answer, part by part, then uploads its files. Each item but the
 * last records its ref in the checkpoint, so a resumed turn skips what went
 * out; every item carries an idempotency key, so one sent just before a
 * crash lands once. The last needs no record: the inbox trim that follows
 * clears the turn. A streamed answer's first part replaces the streamed
 * message by an edit, or finishes its native stream.
 */
export function deliver(
  env: DeliveryEnvironment,
  address: ConversationAddress,
  checkpoint: Checkpoint,
  pending: readonly InboundMessage[],
  answer: string,
  shown: Shown,
): Promise<void> {
  return traceDelivery(address.platform, () =>
    deliverParts(env, address, checkpoint, pending, answer, shown),
  );
}

async function deliverParts(
  env: DeliveryEnvironment,
  address: ConversationAddress,
  checkpoint: Checkpoint,
  pending: readonly InboundMessage[],
  answer: string,
  { streamRef, finishStream, resumed, files = [], activity, rated }: Shown,
): Promise<void> {
  const outbound = env.outbounds[address.platform];
  if (!outbound) {
    env.logger.warn("no outbound for this platform; the answer is not delivered", {
      platform: address.platform,
    });
    return;
  }
  const target = targetOf(address, pending.at(-1));
  const parts = splitMessage(answerText(answer, files, outbound), outbound.maxLength);
  const uploads = outbound.upload ? files : [];
  const items = parts.length + uploads.length;
  noteDelivery(parts.length, streamRef !== undefined && checkpoint.delivered.length === 0 ? 1 : 0);
  let current = checkpoint;
  // The buttons go under the answer's last text part: before it goes out, the answer is rated.
  const controls =
    rated && current.delivered.length < parts.length
      ? await rateAnswer(env, address, { ...rated, turnId: current.turnId })
      : [];
  for (let i = current.delivered.length; i < items; i++) {
    const part = parts[i];
    const last = i === parts.length - 1 && controls.length > 0 ? { controls } : {};
    let ref: string;
    if (part === undefined) {
      const n = i - parts.length;
      const record = uploads[n] as ToolFileRecord;
      activity?.({ kind: "sending", file: record.name, image: record.type.startsWith("image/") });
      ref = await sendFile(env, address, target, {
        record,
        key: fileKey(current.turnId, n),
        resumed,
      });
    } else if (i === 0 && streamRef !== undefined) {
      // A native stream ends with the last part's buttons under it; an edited one gets them by its edit.
      if (finishStream) await finishStream(part, last.controls);
      else await outbound.edit(target, streamRef, part, { ...last, final: true });
      ref = streamRef;
    } else {
      ref = await outbound.post(target, part, {
        idempotencyKey: partKey(current.turnId, i),
        // A resumed turn's delivery may repeat a post its crashed run made.
        mayExist: resumed,
        ...last,
      });
    }
    if (i === items - 1) break;
    const next = { ...current, delivered: [...current.delivered, ref] };
    await env.store.turns.writeCheckpoint(address, next, {
      turnId: current.turnId,
      step: current.step,
    });
    current = next;
  }
}

/** The idempotency key of an answer's part: the same in every run of the turn, and for the streamed message (part 0). */
export function partKey(turnId: string, part: number): string {
  return `${turnId}-${part}`;
}
