import type { ConversationAddress } from "../core/conversation.ts";
import type { Activity } from "../core/delivery/activity.ts";
import type { FileSource } from "./file-source.ts";

/**
 * A file a tool made for the answer (a chart, a report), already checked
 * against the attachment caps, its type sniffed from the bytes. Delivered
 * after the answer's text, once, like a part of the answer.
 */
export interface OutgoingFile {
  /** The file name people see, e.g. "report.pdf". */
  readonly name: string;
  /** Sniffed from the bytes (`image/png`, `application/pdf`); `application/octet-stream` when unknown. */
  readonly type: string;
  readonly bytes: Uint8Array;
}

/** Where an answer goes: the conversation, and the thread and message it answers. */
export interface DeliveryTarget extends ConversationAddress {
  readonly thread?: string;
  readonly replyTo?: string;
}

/** How a post or upload is delivered once: see {@link Outbound.post}. */
export interface DeliveryOptions {
  readonly idempotencyKey: string;
  readonly mayExist?: boolean;
}

/**
 * A button under a posted message (an approval request's Approve, Deny...):
 * a Slack Block Kit button, a Discord button, a Telegram inline key, or a
 * typed command where a channel has no buttons. `payload` comes back in the
 * click exactly as given (at most 64 bytes, Telegram's limit).
 */
export interface MessageControl {
  readonly payload: string;
  readonly label: string;
  readonly style?: "primary" | "danger";
}

/** A post's options: a delivery's, whether it is a streamed preview, and its buttons. */
export interface PostOptions extends DeliveryOptions {
  readonly preview?: boolean;
  /** Buttons under the message, in order; a later {@link Outbound.edit} removes them unless it sets its own. */
  readonly controls?: readonly MessageControl[];
}

/** An edit's options: the buttons the message shows after it (none when unset). */
export interface EditOptions {
  /** Set by the final edit of a streamed answer: its feedback buttons. */
  readonly controls?: readonly MessageControl[];
  /**
   * Set by the edit that brings a streamed message to the finished answer: a
   * channel that spaces out its streaming edits sends this one at once
   * instead of waiting for its next slot (the platform's own 429s are still
   * waited out), so the answer shows as soon as the model is done.
   */
  readonly final?: boolean;
}

/**
 * How a worker talks back to a platform. Each channel implements it over its
 * REST API. `post` takes an idempotency key, the same for every attempt to
 * deliver the same part of the same answer: a channel that can dedupe on it
 * (a nonce, a Redis SET NX) makes a retried delivery land once. A `post` or
 * `edit` into a conversation the platform says is gone for the bot throws
 * `TargetGoneError` (src/ports/target-gone.ts): trying again would
 * fail again.
 */
export interface Outbound {
  /** The longest message the platform takes; longer answers are split. */
  readonly maxLength: number;
  /** Whether `edit` is worth using for streaming. */
  readonly canEdit: boolean;
  /**
   * Returns the ref of the message for this key. `mayExist` is set when this
   * delivery may repeat one cut short by a crash (a resumed turn): a channel
   * that can look its posts up checks first, and a message it finds under
   * the key is edited to `text` if it shows something else (the streamed
   * partial of a worker that died is the answer's first part, same key).
   * `preview` marks a streamed preview, not the answer: a message already
   * under the key is left as it shows (it may be the answer, delivered by
   * the run that took the turn over while this one's post was on its way);
   * the answer's own delivery brings the message to the answer.
   */
  post(target: DeliveryTarget, text: string, options: PostOptions): Promise<string>;
  /**
   * Replaces the message's text; it keeps no buttons ({@link PostOptions.controls})
   * but those `options.controls` names (a streamed answer's last edit puts its
   * feedback buttons under it).
   */
  edit(target: DeliveryTarget, ref: string, text: string, options?: EditOptions): Promise<void>;
  typing(target: DeliveryTarget): Promise<void>;
  /**
   * Shows what the turn is doing on the platform's own indicator (Slack's
   * assistant status, a Telegram chat action), in place of `typing`: called
   * when it changes and again every few seconds while it lasts (an indicator
   * expires), never more often than {@link activityEveryMs}. `undefined`
   * clears it once the answer landed. Best effort: a failure costs only the
   * indicator. Unset: the turn sends `typing`.
   */
  showActivity?(target: DeliveryTarget, activity: Activity | undefined): Promise<void>;
  /** The least time between two `showActivity` calls of one turn (ms); unset: 1,000. */
  readonly activityEveryMs?: number;
  /**
   * A platform whose only indicator is typing (Discord) shows a running tool
   * as a short message of its own, the status line ("Searching the web…"):
   * posted with `post` once per turn, when the first tool starts, and
   * deleted with {@link remove} when the answer lands. Needs `remove`.
   */
  readonly activityLine?: boolean;
  /**
   * Posts to a person in their direct message with the bot (opened when
   * there is none yet): word about something of theirs that happened outside
   * any conversation, such as a schedule of theirs that paused itself.
   * Unset: the platform cannot write to a person first from here, and the
   * caller logs what it would have said.
   */
  postDirect?(person: DirectPerson, text: string, options: DeliveryOptions): Promise<string>;
  /** Deletes one of the bot's messages; one already gone is not an error. */
  remove?(target: DeliveryTarget, ref: string): Promise<void>;
  /**
   * Uploads a file into the conversation (the thread the answer is in), once
   * per idempotency key, with `mayExist` meaning what it means for `post`.
   * Returns the platform's ref of the file's message. Unset: the platform
   * takes no files from this bot, and the answer says the file was not sent.
   */
  upload?(target: DeliveryTarget, file: OutgoingFile, options: DeliveryOptions): Promise<string>;
  /** Where the platform's files are, for the worker's fetcher; unset: files are named, not read. */
  readonly files?: FileSource;
  /**
   * The platform's own streaming (Slack's `chat.startStream`, Telegram's
   * message drafts), used instead of post-and-edit where it applies. Unset:
   * answers stream by post-and-edit everywhere.
   */
  readonly native?: NativeStreaming;
}

/** What a native stream is opened with: see {@link NativeStreaming.open}. */
export interface StreamOptions {
  /** The key of the answer's first part: the same in every run of the turn (a draft's id is derived from it). */
  readonly key: string;
  /** The person the answer is for (Slack streams to a recipient outside DMs). */
  readonly recipient?: string;
}

/**
 * A platform's native streaming. `open` answers `undefined` where it does not
 * apply (a Slack channel message outside a thread, a Telegram group or
 * topic, a setting that asks for edits): the answer then streams by
 * post-and-edit, as on any platform.
 */
export interface NativeStreaming {
  open(target: DeliveryTarget, options: StreamOptions): Promise<NativeStream | undefined>;
  /**
   * Brings a streamed message a crashed run left (its ref recorded in the
   * stream state) to `text` and ends its stream, whatever state it was left
   * in: still streaming, timed out, or already stopped. One message, never a
   * second. Only for streams of kind `message`.
   */
  finish(
    target: DeliveryTarget,
    ref: string,
    text: string,
    options: StreamOptions,
    controls?: readonly MessageControl[],
  ): Promise<void>;
  /**
   * The stream a crashed run started at or after `since` (ms) without
   * recording its ref: it died while the platform was answering the start.
   * Undefined: there is none, or the platform cannot tell.
   */
  find?(target: DeliveryTarget, since: number, options: StreamOptions): Promise<string | undefined>;
}

/**
 * One answer streaming natively. `kind` says what it leaves behind:
 * `message`, a message that becomes the answer's first part once finished
 * (Slack); `draft`, nothing (a Telegram draft is not a message): the answer
 * is posted after it, as if nothing had streamed.
 */
export interface NativeStream {
  readonly kind: "message" | "draft";
  /**
   * Shows `text`, the whole answer so far (the stream sends what is new).
   * Returns the message's ref once one exists, so it is recorded before
   * anything more is appended.
   */
  append(text: string): Promise<string | undefined>;
  /**
   * Waits for this stream's turn to append, where the platform spaces
   * appends out (a Telegram draft waits for the chat's pace and the
   * worker's budget of drafts; the first never waits for the budget).
   * Resolves false if `signal` aborts first. The newest text is read after
   * it, so text overtaken while waiting is never rendered or sent.
   */
  ready?(signal?: AbortSignal): Promise<boolean>;
  /**
   * Asked once the stream ends: whether to show the newest text once more,
   * at once. Yes when the answer's own message will wait (a Telegram bot's
   * new messages queued for its pace) and the platform takes one more
   * update now, so the whole answer can be read meanwhile.
   */
  showLast?(): boolean;
  /**
   * Ends the stream showing exactly `text`: the answer's first part, or the
   * partial with the cut-short note, with `controls` under it (an answer's
   * last part's 👍 / 👎). A draft ends with nothing to do: the answer's post
   * carries them.
   */
  finish(text: string, controls?: readonly MessageControl[]): Promise<void>;
  /** Ends the stream as it shows (a turn parked on an approval request); the answer later replaces it. */
  stop(): Promise<void>;
}

/** Whom {@link Outbound.postDirect} writes to: a person of a workspace, by the platform's user id. */
export interface DirectPerson {
  readonly workspace: string;
  readonly user: string;
}

/** Outbound ports by platform name. */
export type Outbounds = Readonly<Record<string, Outbound>>;
