import type { LoggerPort } from "../core/logger.ts";
import type { Outbounds } from "../ports/outbound.ts";
import type { ToolFileStore } from "../ports/tool-files.ts";
import type { Inbox } from "../store/inbox.ts";
import type { Store } from "../store/index.ts";

/**
 * What delivering an answer needs from the process around it: the part of
 * the turn's environment (TurnEnvironment extends it) that posts, edits,
 * uploads and records what went out.
 */
export interface DeliveryEnvironment {
  readonly outbounds: Outbounds;
  readonly logger: LoggerPort;
  /** Where a delivered part's ref is recorded, so a resumed turn skips it. */
  readonly store: Store;
  /** Whose lease a stream checks before each edit. */
  readonly inbox: Inbox;
  /** Keeps the files tools return until the answer goes out; unset: such files are refused with a note. */
  readonly toolFiles?: ToolFileStore;
  /** Stream answers by editing the posted message at most this often (ms); 0 or unset: no streaming. */
  readonly streamEditMs?: number;
  /** Whether final answers get 👍 / 👎 buttons (see rating.ts); unset: they do. */
  readonly feedback?: boolean;
}
