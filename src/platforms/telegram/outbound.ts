import type { Api } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import { type Activity, THINKING } from "../../core/delivery/activity.ts";
import { clip } from "../../core/delivery/split.ts";
import type { LoggerPort } from "../../core/logger.ts";
import type {
  DeliveryOptions,
  DeliveryTarget,
  DirectPerson,
  OutgoingFile,
} from "../../ports/outbound.ts";
import { type Editing, PlatformOutbound, type Posting } from "../platform-outbound.ts";
import { describeTelegramError, isTelegramError } from "./api.ts";
import { ChatPacer } from "./chat-pacer.ts";
import { TelegramDrafts } from "./draft.ts";
import { TelegramFiles } from "./files.ts";
import { floodGateOf, STREAMING } from "./flood-gate.ts";
import { escapeHtml, toTelegramHtml } from "./format.ts";
import { telegramGone } from "./gone.ts";
import { showsText, splitTelegramHtml, visibleText } from "./html-split.ts";
import { controlKeyboard } from "./keyboards.ts";
import { placementOf } from "./placement.ts";
import type { SentLedger } from "./sent-ledger.ts";
import { TELEGRAM_TRAITS } from "./traits.ts";
import { uploadToTelegram } from "./upload.ts";

/** Telegram refuses a message whose text, after entity parsing, is over 4,096 characters. */
export const TELEGRAM_TEXT_LIMIT = 4_096;
const NOT_MODIFIED = /message is not modified/i;
const CANT_PARSE = /can't parse entities/i;

/** Thrown when a post has nowhere to remember what it sent: the channel was never started or attached. */
export class TelegramSetupError extends Error {
  override readonly name = "TelegramSetupError";
}

/**
 * The worker's port to Telegram, over the Bot API alone (a token, no
 * polling): answers go to the chat and forum topic they came from, as
 * replies to the message they answer, converted from markdown to Telegram
 * HTML. Streaming edits are paced per chat, the final one is not held
 * back; new messages keep the bot's pace and 429s are waited out
 * (flood-gate.ts). Telegram has no nonce, so the {@link SentLedger}
 * remembers which message each idempotency key became. In private chats
 * an answer streams into a draft first (draft.ts), which is no message at all.
 */
export class TelegramOutbound extends PlatformOutbound {
  #ledger: SentLedger | undefined;
  #logger: LoggerPort | undefined;
  readonly #pacer: ChatPacer;
  /** Files people sent, by `file_id`, for the worker's fetcher. */
  readonly files: TelegramFiles;
  /** Streamed drafts in private chats (draft.ts); groups and topics stream by edits. */
  readonly native: TelegramDrafts;

  constructor(
    private readonly api: () => Api,
    /** To redact from what is logged. */
    private readonly token: string,
    editIntervalMs = 1_000,
    /** The Bot API root (a local server, a test's fake); unset: the cloud Bot API. */
    apiRoot: () => string | undefined = () => undefined,
    /** The `telegram:` setting `streaming:`, read per answer; default native (drafts). */
    streaming: () => "native" | "edit" = () => "native",
  ) {
    super(TELEGRAM_TRAITS);
    this.#pacer = new ChatPacer(editIntervalMs);
    this.files = new TelegramFiles(api, token, apiRoot);
    this.native = new TelegramDrafts(
      api,
      this.#pacer,
      (text) => renderParts(text)[0] as string,
      streaming,
      undefined,
      () => {
        const gate = floodGateOf(token);
        return Math.max(gate.pacer.waitMs, gate.paidPacer.waitMs);
      },
    );
  }

  /**
   * Where posts are remembered, and where a refused HTML answer is reported;
   * the channel attaches them when it starts, a worker process itself.
   */
  attach(ledger: SentLedger, logger?: LoggerPort): void {
    this.#ledger = ledger;
    this.#logger = logger;
  }

  protected async send(target: DeliveryTarget, text: string, posting: Posting): Promise<string> {
    const { idempotencyKey, mayExist, preview, controls } = posting;
    const ledger = this.#ledgerOrThrow();
    const [head, ...overflow] = renderParts(text);
    // The buttons go under the first part: its message is the ref a later edit takes them from.
    const keyboard = controlKeyboard(controls);
    const first = await this.#postOnce(
      target,
      head as string,
      text,
      ledger.key(idempotencyKey, 0),
      keyboard,
      preview,
    );
    if (!first.ours) {
      // The key's message is another delivery's: one recorded before (a resumed delivery of a
      // part sent before, or of the streamed message that is the answer's first part), or one
      // that raced this post and was recorded first (the streamed post of a run that lost the
      // turn, still on its way when the run that took over delivered). It shows that
      // delivery's text: bring it to this one rather than leave a partial behind.
      // A streamed preview leaves it: it may be the answer itself.
      if (mayExist && !preview) await this.#editAll(target, first.ref, text, keyboard);
      return first.ref;
    }
    for (const [i, html] of overflow.entries()) {
      await this.#postOnce(target, html, text, this.#overflowKey(ledger, target, first.ref, i));
    }
    return first.ref;
  }

  protected gone(error: unknown, target: DeliveryTarget): unknown {
    return telegramGone(error, target.channel);
  }

  /**
   * The person's private chat with the bot, whose id is theirs. Telegram
   * lets a bot write first only to someone who has started it: anyone else
   * answers 403, which {@link post} throws as `TargetGoneError`.
   */
  protected async directTarget(person: DirectPerson): Promise<DeliveryTarget> {
    const chat = person.user;
    return { platform: "telegram", workspace: chat, channel: chat, conversation: chat };
  }

  /**
   * Edits a message with new text. A part that grows past the limit when
   * converted continues in messages of its own after it, posted once and
   * edited from then on (an edit that needs fewer leaves the extra ones).
   */
  protected async replace(target: DeliveryTarget, ref: string, text: string, editing: Editing) {
    await this.#editAll(target, ref, text, controlKeyboard(editing.controls), editing.final);
  }

  /** {@link edit}, keeping `keyboard` under the first part (an edit without one removes it). */
  async #editAll(
    target: DeliveryTarget,
    ref: string,
    text: string,
    keyboard: InlineKeyboardMarkup | undefined,
    final = false,
  ): Promise<void> {
    const ledger = this.#ledgerOrThrow();
    const [head, ...overflow] = renderParts(text);
    await this.#edit(target, ref, head as string, text, keyboard, final);
    for (const [i, html] of overflow.entries()) {
      const key = this.#overflowKey(ledger, target, ref, i);
      const existing = await ledger.find(key);
      if (existing !== undefined) await this.#edit(target, existing, html, text, undefined, final);
      else await this.#postOnce(target, html, text, key);
    }
  }

  /** Sends a file into the answer's chat and topic, once per key (see upload.ts). */
  async upload(
    target: DeliveryTarget,
    file: OutgoingFile,
    options: DeliveryOptions,
  ): Promise<string> {
    const deps = { api: this.api(), ledger: this.#ledgerOrThrow(), logger: this.#logger };
    return uploadToTelegram(deps, target, file, options);
  }

  async typing(target: DeliveryTarget): Promise<void> {
    await this.showActivity(target, THINKING);
  }

  /**
   * A chat action for the activity: "typing" while the turn thinks or runs
   * a tool, "upload_photo" or "upload_document" while a file of the answer
   * goes up. An action shows for 5 s or until the bot's next message, so
   * nothing is sent to clear it, nor for a wait (a parked turn shows nothing).
   */
  async showActivity(target: DeliveryTarget, activity: Activity | undefined): Promise<void> {
    const action = chatAction(activity);
    if (!action) return;
    await this.api().sendChatAction(target.channel, action, {
      ...(target.thread !== undefined ? { message_thread_id: Number(target.thread) } : {}),
    });
  }

  /**
   * Sends one message under `key` unless one is recorded there; `ours` says
   * whether the message returned is the one this call sent (and so shows `html`).
   * A streamed `preview` waits for the bot's pace behind answers (flood-gate.ts).
   */
  async #postOnce(
    target: DeliveryTarget,
    html: string,
    markdown: string,
    key: string,
    keyboard?: InlineKeyboardMarkup,
    preview = false,
  ): Promise<{ ref: string; ours: boolean }> {
    const ledger = this.#ledgerOrThrow();
    const state = await ledger.intend(key);
    if (state.kind === "sent") return { ref: state.messageId, ours: false };
    if (state.kind === "sending") {
      this.#logger?.warn(
        "a Telegram message is sent again: the worker that began sending it stopped before Telegram answered, so it may appear twice",
        { chat: target.channel },
      );
    }
    const sent = await this.#send(target, html, markdown, keyboard, preview);
    const id = String(sent);
    const winner = await ledger.record(key, id);
    if (winner === id) return { ref: id, ours: true };
    // Another delivery of the same part got there first: keep one copy, theirs.
    await this.api()
      .deleteMessage(target.channel, sent)
      .catch(() => {});
    return { ref: winner, ours: false };
  }

  async #send(
    target: DeliveryTarget,
    html: string,
    markdown: string,
    keyboard: InlineKeyboardMarkup | undefined,
    preview: boolean,
  ): Promise<number> {
    const where = {
      ...(preview ? STREAMING : {}),
      link_preview_options: { is_disabled: true },
      ...placementOf(target),
      ...(keyboard ? { reply_markup: keyboard } : {}),
    };
    try {
      const sent = await this.api().sendMessage(target.channel, html, {
        ...where,
        parse_mode: "HTML",
      });
      return sent.message_id;
    } catch (error) {
      if (!isTelegramError(error, 400, CANT_PARSE)) throw error;
      // A conversion bug must not cost the answer: send it as plain text instead.
      this.#warn("Telegram refused the answer's HTML; it was sent as plain text", error);
      const sent = await this.api().sendMessage(
        target.channel,
        plainFallback(html, markdown),
        where,
      );
      return sent.message_id;
    }
  }

  /**
   * Edits one message. Telegram drops an inline keyboard from a message
   * edited without `reply_markup`: a plain edit is how buttons go away.
   */
  async #edit(
    target: DeliveryTarget,
    ref: string,
    html: string,
    markdown: string,
    keyboard?: InlineKeyboardMarkup,
    final = false,
  ): Promise<void> {
    // The finished answer goes at once; only streaming edits keep the chat's pace.
    if (final) this.#pacer.claim(target.channel);
    else await this.#pacer.wait(target.channel);
    const options = {
      link_preview_options: { is_disabled: true },
      ...(keyboard ? { reply_markup: keyboard } : {}),
    };
    try {
      await this.api().editMessageText(target.channel, Number(ref), html, {
        ...options,
        parse_mode: "HTML",
      });
    } catch (error) {
      if (isTelegramError(error, 400, NOT_MODIFIED)) return;
      if (!isTelegramError(error, 400, CANT_PARSE)) throw error;
      this.#warn("Telegram refused the answer's HTML; it was edited in as plain text", error);
      await this.api()
        .editMessageText(target.channel, Number(ref), plainFallback(html, markdown), options)
        .catch((again: unknown) => {
          if (!isTelegramError(again, 400, NOT_MODIFIED)) throw again;
        });
    }
  }

  /** The messages a part continues in are found by the part's own message, by post and edit alike. */
  #overflowKey(ledger: SentLedger, target: DeliveryTarget, ref: string, i: number): string {
    return ledger.key(`more:${target.channel}:${ref}`, i + 1);
  }

  #ledgerOrThrow(): SentLedger {
    if (this.#ledger) return this.#ledger;
    throw new TelegramSetupError(
      "The Telegram outbound has nowhere to remember its posts: start the Telegram channel, or call useOutboundOnly(redis, prefix) in a worker process, before turns run.",
    );
  }

  #warn(message: string, error: unknown): void {
    this.#logger?.warn(message, { error: describeTelegramError(error, this.token) });
  }
}

/** The chat action that shows `activity`; none for a wait or a cleared status. */
function chatAction(activity: Activity | undefined) {
  if (!activity || activity.kind === "approval") return undefined;
  if (activity.kind === "sending") return activity.image ? "upload_photo" : "upload_document";
  return "typing";
}

/**
 * An answer as Telegram HTML messages: converted, then split where it still
 * exceeds the limit, parts Telegram would call empty dropped. An answer that
 * converts to nothing visible (an empty code block) goes as written.
 * `toHtml` is the converter: the shared stream of every answer's edits
 * unless a bench gives each answer its own.
 */
export function renderParts(
  markdown: string,
  toHtml: (markdown: string) => string = toTelegramHtml,
): string[] {
  const parts = splitTelegramHtml(toHtml(markdown), TELEGRAM_TEXT_LIMIT).filter(showsText);
  if (parts.length > 0) return parts;
  const raw = markdown.trim() === "" ? "…" : markdown;
  return splitTelegramHtml(escapeHtml(raw), TELEGRAM_TEXT_LIMIT);
}

/** The visible text of a part, within the limit, for when its HTML was refused. */
function plainFallback(html: string, markdown: string): string {
  const text = visibleText(html);
  return clip(/\S/.test(text) ? text : markdown, TELEGRAM_TEXT_LIMIT);
}
