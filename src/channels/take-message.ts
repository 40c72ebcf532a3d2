import { type InboundMessage, isTooLong, tooLongReply } from "../core/agent/inbound.ts";
import type { Actor } from "../core/commands/index.ts";
import { traceReceive } from "../observability/tracing-ingress.ts";
import type { ChannelRuntime } from "./channel.ts";
import { ChannelState } from "./channel-state.ts";
import { chatContextOf, routeChatText } from "./chat-commands.ts";
import { passedGate } from "./gate-pass.ts";

/** Who sent a message and how to answer them where they wrote. */
export interface MessageOrigin {
  /**
   * The sender as the command permissions see them: `id` as `permissions:`
   * names people (`<platform>:<user>`), `isPlatformAdmin` when the platform
   * says they administer the workspace. A function is asked only when a
   * command needs it (a platform lookup costs a call).
   */
  readonly actor: Actor | (() => Promise<Actor>);
  /** Posts a reply in the conversation, for answers given on the spot (commands, refusals). */
  readonly reply: (text: string) => Promise<unknown>;
  /**
   * True when the adapter has already taken the event once by its own
   * ledger (Slack, Discord). Otherwise takeMessage takes `message.eventId`
   * once in the channel's state, so a redelivered command is not answered
   * twice (the queue alone would only keep it from a second turn).
   */
  readonly claimed?: boolean;
}

/**
 * What became of a message: `queued` for a worker, a `repeat` of an event
 * the queue already took, `answered` on the spot (a command, or too long to
 * read), or `refused` by the access gate or a limit.
 */
export type TakenAs = "queued" | "repeat" | "answered" | "refused";

/**
 * What a channel's ingress does with each message, in one call: answers one
 * too long to read, lets it through the access gate, answers a chat command
 * (`/tools`, `/skills`, `/help`, also typed with `!`) checking who may change
 * which scope, meters it against the limits, and queues the rest. A message
 * whose `eventId` the queue has taken before is not queued again.
 *
 * @example
 * await takeMessage(runtime, inbound, {
 *   actor: { id: `matrix:${event.sender}`, isPlatformAdmin: await isRoomAdmin(event.sender) },
 *   reply: (text) => room.send(text),
 * });
 */
export function takeMessage(
  runtime: ChannelRuntime,
  message: InboundMessage,
  origin: MessageOrigin,
): Promise<TakenAs> {
  return traceReceive(message, () => takeOnce(runtime, message, origin));
}

async function takeOnce(
  runtime: ChannelRuntime,
  message: InboundMessage,
  origin: MessageOrigin,
): Promise<TakenAs> {
  if (origin.claimed || !message.eventId) return takeNow(runtime, message, origin);
  const state = new ChannelState(
    runtime.redis,
    runtime.sources.store.keys,
    message.platform,
    message.workspace,
  );
  let taken: TakenAs = "repeat";
  await state.events.take(`message:${message.eventId}`, async () => {
    taken = await takeNow(runtime, message, origin);
  });
  return taken;
}

async function takeNow(
  runtime: ChannelRuntime,
  message: InboundMessage,
  origin: MessageOrigin,
): Promise<TakenAs> {
  if (isTooLong(message.text)) {
    await origin.reply(tooLongReply(message.text.length));
    return "answered";
  }
  const refused = { say: origin.reply };
  if (!(await passedGate(await runtime.gate.admit(message), refused))) return "refused";
  const outcome = await routeChatText(message.text, message, origin.actor, chatContextOf(runtime));
  if (outcome.kind === "reply") {
    await origin.reply(outcome.text);
    return "answered";
  }
  // A skill's instructions can carry a request near the limit over it.
  if (isTooLong(outcome.text)) {
    await origin.reply(tooLongReply(outcome.text.length));
    return "answered";
  }
  if (!(await passedGate(await runtime.gate.meter(message), refused))) return "refused";
  const { fresh } = await runtime.ungatedQueue.enqueue({ ...message, text: outcome.text });
  return fresh ? "queued" : "repeat";
}
