import { conversationModel } from "../conversation/conversation-model.ts";
import type { ConversationAddress } from "../core/agent/inbound.ts";
import { isQueueMode, type QueueBehaviour } from "../core/agent/queue-mode.ts";
import { findModel, type ModelPrice } from "../core/config/index.ts";
import { type StoredSettings, settingOf } from "../store/index.ts";
import type { TurnEnvironment } from "./turn-environment.ts";

/** Without a queue setting: every waiting message makes the next turn, at once. */
const COLLECT_AT_ONCE: QueueBehaviour = { mode: "collect", debounceMs: 0 };

/** What people chose for a conversation, as its next turn runs with it. */
export interface TurnChoices {
  readonly behaviour: QueueBehaviour;
  /** The model to name in requests; undefined: the provider's own. */
  readonly model: string | undefined;
  /** The price of the model the turn runs on, from the config's `models:` list. */
  readonly price: ModelPrice | undefined;
}

/**
 * Reads, at a turn boundary, what `/queue` and `/model` chose (the
 * conversation's, else its channel's) and resolves it against the config:
 * a chat choice of a model the list no longer has is skipped.
 */
export async function readTurnChoices(
  env: TurnEnvironment,
  address: ConversationAddress,
): Promise<TurnChoices> {
  return choicesOf(env, address, await env.store.settings.read(address));
}

/** {@link readTurnChoices} from settings read elsewhere (a turn snapshot). */
export function choicesOf(
  env: TurnEnvironment,
  address: ConversationAddress,
  stored: StoredSettings,
): TurnChoices {
  const queue = settingOf(stored, "queue");
  const behaviour =
    env.queueBehaviour?.(address, isQueueMode(queue) ? queue : undefined) ?? COLLECT_AT_ONCE;
  const models = env.config().models;
  const model = conversationModel(models, address, stored);
  const price = findModel(models, model ?? env.model ?? "")?.price;
  return { behaviour, model, price };
}
