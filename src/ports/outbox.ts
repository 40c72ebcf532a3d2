import type { Redis } from "ioredis";
import type { Outbound } from "./outbound.ts";

/** One entry of an outbox's stream: a post, the edit of one, or a file written for the reader. */
export interface OutboxEntry {
  readonly id: string;
  readonly kind: "post" | "edit" | "file";
  readonly conversation: string;
  readonly text: string;
  readonly ref?: string;
  readonly key?: string;
  /** Where a file entry's bytes were written. */
  readonly path?: string;
  /** A post that had controls (an approval request): the terminal shows its edit, the outcome. */
  readonly controls?: true;
}

/**
 * An outbound every process has, whatever channels it runs: answers go into
 * a Redis stream that a reader in another process (the terminal) takes, so
 * any worker can answer a conversation that has no platform connection of
 * its own. The console channel provides it; the pipeline only posts to it.
 */
export interface Outbox extends Outbound {
  /** The stream's key. */
  readonly stream: string;
  /** Entries after `since` ("0" for all), waiting up to `blockMs` for new ones. */
  read(since: string, blockMs: number, redis?: Redis): Promise<OutboxEntry[]>;
}
