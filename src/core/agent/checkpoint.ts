import type { ApprovalWait } from "../approvals/approval.ts";
import type { AssistantMessage, ChatMessage, Usage } from "./messages.ts";

/** One file of a turn as the checkpoint records it. */
export interface AttachmentRecord {
  readonly ref: string;
  readonly name: string;
  readonly outcome: string;
  readonly type?: string;
  readonly bytes: number;
}

/**
 * One file a tool made for the answer, as the checkpoint records it: never
 * the bytes (those wait in Redis under `ref`, in the conversation's slot,
 * for as long as `attachments.cache_seconds`), so a turn resumed on another
 * worker sends the same files without running the tool again.
 */
export interface ToolFileRecord {
  /** Where the bytes are kept (the id in the key scheme's `toolFile` key). */
  readonly ref: string;
  readonly name: string;
  /** Sniffed from the bytes. */
  readonly type: string;
  readonly bytes: number;
}

/**
 * What a turn leaves behind after every step, so a worker that dies mid-turn
 * is replaced by one that resumes where it stopped: it never asks the model
 * again for a step already stored, and never delivers an answer twice.
 */
export interface Checkpoint {
  readonly v: 1;
  /** Unique per turn; a resumed turn keeps it. */
  readonly turnId: string;
  /** Steps completed and stored in history. */
  readonly step: number;
  /** History length when the turn began: what came before is not this turn's. */
  readonly historyStart: number;
  /** How many inbox messages this turn consumes (they are removed when it finishes). */
  readonly inboxCount: number;
  /** The contract hash the turn froze, and after any discovery loads. */
  readonly contractHash: string;
  /** Tools loaded by discovery during this turn, in load order. */
  readonly loaded: readonly string[];
  /**
   * The model's tool calls of the step in progress, stored before tools with
   * effects run: a resumed turn runs these same calls (same ids, so the same
   * idempotency keys) instead of asking the model again. Cleared by the
   * step's commit.
   */
  readonly calling?: { readonly step: number; readonly message: AssistantMessage };
  /**
   * Set while the step's calls wait for a person's decision (some call a
   * tool under `ask`): the turn is parked, no worker holds it, and the
   * step's calls are in `calling`. Cleared by the step's commit.
   */
  readonly approval?: ApprovalWait;
  /**
   * The files this turn's messages carried, as the worker read them (file
   * id, what became of it, sniffed type, bytes fetched). What the model gets
   * from them is in the turn's user messages in history, stored with this
   * checkpoint, so a resumed turn sends the same bytes without fetching again.
   */
  readonly attachments?: readonly AttachmentRecord[];
  /**
   * The files this turn's tools made, in call order, stored with the step
   * that made them; delivered after the answer's text parts.
   */
  readonly files?: readonly ToolFileRecord[];
  /**
   * Platform refs of what was already sent for this turn: the answer's
   * parts, then its files, in order.
   */
  readonly delivered: readonly string[];
  /** Set just before the answer is posted: a resumed turn that finds it knows to check, not to repost blindly. */
  readonly delivering?: { readonly parts: number; readonly digest: string };
  /** Set once the answer is fully delivered; only the inbox trim and cleanup remain. */
  readonly done?: boolean;
  /**
   * The child turns (`ask_agent`) of the step in progress, by call path
   * (`call_1`, or `call_1/call_7` for a child's child): each child's own
   * steps, stored as it goes, so a resumed turn finishes a child without
   * repeating its finished tool calls. Cleared by the step's commit, which
   * stores each child's answer as its call's result.
   */
  readonly children?: Readonly<Record<string, ChildCheckpoint>>;
}

/** One child turn of a delegation, as far as it got: see `Checkpoint.children`. */
export interface ChildCheckpoint {
  /** The agent asked. */
  readonly agent: string;
  /** The child's steps completed and stored in `messages`. */
  readonly step: number;
  /** The child's own messages: the task, then each completed step's. */
  readonly messages: readonly ChatMessage[];
  /** Tools the child's discovery loaded, in load order. */
  readonly loaded: readonly string[];
  /** The model's calls of the child's step in progress, stored before tools with effects run. */
  readonly calling?: AssistantMessage;
  /** What the child's model calls cost so far, for its token bound. */
  readonly usage: Usage;
}
