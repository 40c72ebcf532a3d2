import type { DeliveryTarget, DirectPerson, Outbound } from "../../src/ports/outbound.ts";

export interface OutboundCall {
  /** `direct`: a post to a person's DM (postDirect), its target that DM. */
  readonly kind: "post" | "edit" | "typing" | "direct";
  readonly at: number;
  readonly text?: string;
  readonly ref?: string;
  readonly key?: string;
  readonly target: DeliveryTarget;
}

/**
 * An Outbound that records what a platform would have received, and dedupes
 * posts by idempotency key as Discord's enforced nonce does.
 */
export class RecordingOutbound implements Outbound {
  readonly calls: OutboundCall[] = [];
  readonly #byKey = new Map<string, string>();
  #next = 1;

  constructor(
    readonly maxLength = 2_000,
    readonly canEdit = true,
  ) {}

  async post(target: DeliveryTarget, text: string, { idempotencyKey }: { idempotencyKey: string }) {
    const existing = this.#byKey.get(idempotencyKey);
    if (existing) return existing;
    const ref = `msg-${this.#next++}`;
    this.#byKey.set(idempotencyKey, ref);
    this.calls.push({ kind: "post", at: Date.now(), text, ref, key: idempotencyKey, target });
    return ref;
  }

  async postDirect(person: DirectPerson, text: string, options: { idempotencyKey: string }) {
    const target = {
      platform: "dm",
      workspace: person.workspace,
      channel: person.user,
      conversation: person.user,
    };
    const ref = await this.post(target, text, options);
    const call = this.calls.at(-1);
    if (call?.ref === ref) this.calls[this.calls.length - 1] = { ...call, kind: "direct" };
    return ref;
  }

  async edit(target: DeliveryTarget, ref: string, text: string) {
    this.calls.push({ kind: "edit", at: Date.now(), text, ref, target });
  }

  async typing(target: DeliveryTarget) {
    this.calls.push({ kind: "typing", at: Date.now(), target });
  }

  /** What a person sees: each message's latest text, in posting order. */
  visible(): string[] {
    const latest = new Map<string, string>();
    for (const call of this.calls) {
      if ((call.kind === "post" || call.kind === "edit") && call.ref)
        latest.set(call.ref, call.text ?? "");
    }
    return [...latest.values()];
  }
}
