import { createHash } from "node:crypto";
import type { Api } from "grammy";
import type {
  DeliveryTarget,
  NativeStream,
  NativeStreaming,
  StreamOptions,
} from "../../ports/outbound.ts";
import type { ChatPacer } from "./chat-pacer.ts";
import { DraftBudget } from "./draft-budget.ts";

/**
 * Telegram's streamed drafts (`sendMessageDraft`): in a private chat the
 * answer streams into a draft, which is not a message, and the whole answer
 * is then posted once with `sendMessage` under the send ledger. A worker
 * killed mid-stream leaves nothing behind to double, and the run that
 * resumes the turn streams on into the same draft: its id comes from the
 * answer's key. Groups and forum topics stream by post-and-edit.
 *
 * An answer's first draft goes at once; the later ones keep the chat's
 * pace and share the worker's budget ({@link DraftBudget}), so the more
 * answers stream at once the less often each draft grows, while the worker's
 * work for drafts stays level. When the answer's message must wait for the
 * bot's pace (many answers ending together), the draft shows the whole
 * answer at once meanwhile: drafts are not new messages.
 */
export class TelegramDrafts implements NativeStreaming {
  constructor(
    private readonly api: () => Api,
    private readonly pacer: ChatPacer,
    /** An answer's text as the Telegram HTML of its first message. */
    private readonly render: (markdown: string) => string,
    /** The `telegram:` setting `streaming:`; `edit` streams by post-and-edit everywhere. */
    private readonly mode: () => "native" | "edit" = () => "native",
    private readonly budget = new DraftBudget(),
    /** About how long the bot's next new message would wait for its pace now (ms). */
    private readonly messageWaitMs: () => number = () => 0,
  ) {}

  async open(target: DeliveryTarget, { key }: StreamOptions): Promise<NativeStream | undefined> {
    // A private chat's id is the person's user id, positive; groups' are negative.
    const chat = Number(target.channel);
    if (this.mode() !== "native" || !(chat > 0) || target.thread !== undefined) return undefined;
    const draftId = draftIdOf(key);
    let first = true;
    return {
      kind: "draft",
      ready: async (signal) => {
        await this.pacer.wait(target.channel);
        if (signal?.aborted) return false;
        if (!first) return this.budget.next(signal);
        first = false;
        return true;
      },
      // The answer's message queued behind others: the person reads it whole in the draft
      // meanwhile, if the chat's pace lets one more call go now (the message still counts in it).
      // Not for a short wait: the message itself shows it soon enough, and the draft's render,
      // call and record would be work for nothing (most answers at a paid broadcast's pace).
      showLast: () => this.messageWaitMs() >= SHOW_LAST_AFTER_MS && this.pacer.take(target.channel),
      append: async (text) => {
        await this.api().sendMessageDraft(chat, draftId, this.render(text), {
          parse_mode: "HTML",
        });
        return undefined;
      },
      // The answer's sendMessage takes the draft's place; nothing is left to end.
      finish: async () => {},
      stop: async () => {},
    };
  }

  /** Drafts leave no message: there is never a crashed run's stream to finish. */
  async finish(): Promise<void> {}
}

/**
 * How long an answer's message must be expected to wait for the bot's pace
 * before a last draft shows the whole answer meanwhile: the time within
 * which a finished answer should be in front of the person anyway.
 */
export const SHOW_LAST_AFTER_MS = 200;

/** A draft id for an answer's key: the same in every run of the turn, non-zero, within 31 bits. */
export function draftIdOf(key: string): number {
  const id = createHash("sha256").update(key).digest().readUInt32BE(0) & 0x7fff_ffff;
  return id === 0 ? 1 : id;
}
