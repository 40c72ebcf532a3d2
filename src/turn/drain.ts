import type { ConversationAddress } from "../core/conversation.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";
import { Turn } from "./turn.ts";
import { LostLeaseError, type TurnEnvironment } from "./turn-environment.ts";

/**
 * Runs the conversation's turns while this worker holds its lease: resumes a
 * checkpointed turn, else takes everything in the inbox as one turn, until
 * the inbox is empty and the lease is let go (atomically, see Inbox.finish).
 * One {@link Turn} per look at the conversation.
 */
export async function drainConversation(
  env: TurnEnvironment,
  address: ConversationAddress,
  leaseToken: string,
  signal: AbortSignal,
  first?: Snapshot,
): Promise<void> {
  let next = first;
  /** The approval wait this drain opened a moment ago: its request is not posted yet. */
  let opened: string | undefined;
  for (;;) {
    if (signal.aborted) throw new LostLeaseError("lease lost");
    const snap = next ?? (await readSnapshot(env, address));
    next = undefined;
    const turn = new Turn(env, address, snap, { token: leaseToken, signal, opened });
    opened = undefined;
    const taken = await turn.take();
    if (taken === "again") continue;
    // Parked on an approval request: the lease is let go, the checkpoint stays.
    if (taken === "parked") return;
    if (taken === "idle") {
      if ((await env.inbox.release(address, leaseToken)) <= 0) return;
      continue;
    }
    // A turn that just began waiting for approval: the next look posts its request and parks it.
    if (taken === "asked") {
      opened = turn.checkpoint.approval?.id;
      continue;
    }
    if ((await turn.end()) === 0) return;
  }
}

async function readSnapshot(env: TurnEnvironment, address: ConversationAddress): Promise<Snapshot> {
  const taken = await takeSnapshot(env.store, env.inbox, address);
  if (!taken.taken) throw new LostLeaseError("lease lost");
  return taken.snapshot;
}
