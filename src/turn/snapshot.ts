import type { Checkpoint } from "../core/agent/checkpoint.ts";
import type { ConversationAddress, InboundMessage } from "../core/conversation.ts";
import { type HashReading, hashReading, readHash, readHashes } from "../store/hash-read.ts";
import type { Inbox } from "../store/inbox.ts";
import type { HistoryReading, Store } from "../store/index.ts";
import { hashFromReply, LuaScript } from "../store/lua.ts";
import type { ConversationState } from "./contract.ts";

/**
 * Takes the lease (when asked) and reads everything of the conversation a
 * turn boundary needs, in one script: a turn starts with one round trip for
 * its own keys, plus the shared scopes. A `/new` that came while a worker
 * held the conversation is applied first (see the script).
 */
const TAKE = LuaScript.file("turn-snapshot-8");

/** Everything a turn boundary reads. */
export interface Snapshot {
  readonly checkpoint: Checkpoint | undefined;
  readonly pending: InboundMessage[];
  readonly history: HistoryReading;
  /** The intent, the scope layers, and what `/queue` and `/model` chose (the conversation's and its channel's). */
  readonly state: ConversationState;
}

export type Taken =
  | { readonly taken: true; readonly snapshot: Snapshot }
  | { readonly taken: false; readonly holder: string; readonly ttlMs: number };

type TakeReply =
  | [0, string, number]
  | [1, string, string | null, string[], string[], string | null, string, string[], string[]];

/**
 * With `lease`, takes it first and reads only if it was free (or already
 * ours); without, reads as the holder.
 */
export async function takeSnapshot(
  store: Store,
  inbox: Inbox,
  address: ConversationAddress,
  lease?: { token: string; ttlMs: number },
): Promise<Taken> {
  const inboxKeys = inbox.keysOf(address);
  const keys = store.keys.conversation(address);
  const stackKeys = store.scopes.stackKeys(address);
  const settingsKeys = store.settings.keysOf(address);
  // One batch: the conversation's slot, the workspace's (its scopes, the channel's and its own settings), the global scope.
  const [reply, [workspace, channel, channelSettings, workspaceSettings], global] =
    await Promise.all([
      TAKE.run(
        inbox.redis,
        [
          inboxKeys.lease,
          keys.checkpoint,
          inboxKeys.inbox,
          keys.history,
          keys.historyTrimmed,
          keys.intent,
          keys.settings,
          keys.reset,
        ],
        [lease?.token ?? "", lease?.ttlMs ?? 0, lease ? 1 : 0],
      ) as Promise<TakeReply>,
      readHashes(inbox.redis, [
        stackKeys.workspace,
        stackKeys.channel,
        settingsKeys.channel,
        settingsKeys.workspace,
      ]),
      readHash(inbox.redis, stackKeys.global),
    ]);
  if (reply[0] === 0) return { taken: false, holder: reply[1], ttlMs: Number(reply[2]) };
  const [, checkpointType, checkpointRaw, pendingRaw, historyRaw, trimmed, intentType, intentFlat] =
    reply;
  const wrongType = (type: string, want: string, key: string) =>
    type === "none" || type === want ? undefined : `${key} holds a ${type}, not a ${want}`;
  const layers = store.scopes.stackFrom(stackKeys, {
    workspace: workspace as HashReading,
    channel: channel as HashReading,
    global,
  });
  return {
    taken: true,
    snapshot: {
      checkpoint: store.turns.fromStored(
        address,
        checkpointRaw,
        wrongType(checkpointType, "string", keys.checkpoint),
      ),
      pending: pendingRaw.map((text) => JSON.parse(text) as InboundMessage),
      history: store.history.fromStored(address, historyRaw, trimmed),
      state: {
        intent: store.intent.fromHash(
          address,
          hashFromReply(intentFlat),
          wrongType(intentType, "hash", keys.intent),
        ),
        layers,
        settings: store.settings.fromHashes(
          settingsKeys,
          hashReading(reply[8], settingsKeys.conversation),
          channelSettings as HashReading,
          workspaceSettings as HashReading,
        ),
      },
    },
  };
}
