import type { ToolFileRecord } from "../core/agent/checkpoint.ts";
import type { OutgoingVerdict } from "../core/attachments/outgoing.ts";
import type { ConversationAddress } from "../core/conversation.ts";
import type { ToolFile } from "../core/tools/tool-result.ts";

/** The bytes of files a turn kept so far, counted across its steps and parallel calls. */
export interface FileTally {
  used: number;
}

/** One file a tool made, judged: the model's note says the verdict; `record` is set when it was kept. */
export interface KeptFile {
  readonly verdict: OutgoingVerdict;
  readonly record?: ToolFileRecord;
}

/**
 * Where the files tools make wait for delivery: each sniffed from its
 * bytes, checked against the attachment caps, and (if kept) stored in the
 * conversation's slot for a while, so the worker that delivers the answer,
 * this one or one that resumed the turn after a crash, finds them without
 * running the tool again.
 */
export interface ToolFileStore {
  /**
   * Judges and keeps `files`, in order; `callKey` (stable across runs of
   * the turn) names where they are kept, so a call that runs again
   * overwrites its own files. Adds what it keeps to `tally`.
   */
  keep(
    address: ConversationAddress,
    callKey: string,
    files: readonly ToolFile[],
    tally: FileTally,
  ): Promise<readonly KeptFile[]>;
  /** The bytes kept under `ref`; undefined once they expired. */
  load(address: ConversationAddress, ref: string): Promise<Uint8Array | undefined>;
}
