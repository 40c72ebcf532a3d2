import type { Actor } from "../core/commands/index.ts";
import {
  type Attachment,
  accountPlatform,
  type InboundMessage,
  isTooLong,
  tooLongReply,
} from "../core/conversation.ts";
import { traceReceive } from "../observability/tracing-ingress.ts";
import type { AdmitOptions } from "./access/gate.ts";
import { type ChannelRuntime, ChannelRuntimeError } from "./channel.ts";
import { ChannelState } from "./channel-state.ts";
import { type CommandRuntime, chatContextOf, routeChatText } from "./chat-commands.ts";
import { FEEDBACK_REPLIES } from "./feedback-desk.ts";
import { passedGate, type RefusalAnswer } from "./gate-pass.ts";

/**
 * What takeMessage uses of a channel's runtime. `redis` holds the ledger
 * of events taken once; a channel whose messages are all `claimed` (the
 * terminal's, each line an event of its own) may go without it.
 */
export type MessagePath = CommandRuntime &
  Pick<ChannelRuntime, "ungatedQueue" | "gate"> &
  Partial<Pick<ChannelRuntime, "redis">>;

/**
 * What a platform's own command UI made of a message: answered on the spot
 * (it has said what it had to say), or a message for the model, with the
 * files it names when the command attached some.
 */
export type RoutedMessage =
  | { readonly kind: "answered" }
  | {
      readonly kind: "message";
      readonly text: string;
      readonly attachments?: readonly Attachment[];
    };

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
  /**
   * How a refusal by the access gate is said, and how the bot leaves a
   * group it was not let into (where the platform lets it). Default: `reply`.
   */
  readonly refusal?: RefusalAnswer;
  /** What the channel vouches for at the gate: a trusted sender (the terminal's owner), a group it can leave. */
  readonly admit?: AdmitOptions;
  /**
   * The platform's own command UI, asked before the chat commands every
   * channel shares: Telegram's lists with buttons and its skill commands,
   * the terminal's `/attach`. Undefined: not one of its own, the shared
   * commands take it. A message it hands on is checked against the length
   * limit again, like any command's (a skill's instructions add to it).
   */
  readonly route?: (message: InboundMessage) => Promise<RoutedMessage | undefined>;
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
  runtime: MessagePath,
  message: InboundMessage,
  origin: MessageOrigin,
): Promise<TakenAs> {
  return traceReceive(message, () => takeOnce(runtime, message, origin));
}

async function takeOnce(
  runtime: MessagePath,
  message: InboundMessage,
  origin: MessageOrigin,
): Promise<TakenAs> {
  if (origin.claimed || !message.eventId) return takeNow(runtime, message, origin);
  if (!runtime.redis) {
    throw new ChannelRuntimeError(
      "takeMessage takes each event once in Redis, and this runtime has no redis: pass the channel's runtime, or claimed: true when the channel takes each event once itself.",
    );
  }
  const state = new ChannelState(
    runtime.redis,
    runtime.sources.store.keys,
    // Two bots in one chat see the same message: each account takes it once.
    message.account ? accountPlatform(message) : message.platform,
    message.workspace,
  );
  let taken: TakenAs = "repeat";
  await state.events.take(`message:${message.eventId}`, async () => {
    taken = await takeNow(runtime, message, origin);
  });
  return taken;
}

async function takeNow(
  runtime: MessagePath,
  message: InboundMessage,
  origin: MessageOrigin,
): Promise<TakenAs> {
  if (isTooLong(message.text)) {
    await origin.reply(tooLongReply(message.text.length));
    return "answered";
  }
  const refused = origin.refusal ?? { say: origin.reply };
  if (!(await passedGate(await runtime.gate.admit(message, origin.admit), refused))) {
    return "refused";
  }
  // A 👎's "what was wrong?": the voter's next plain message here is kept with the vote.
  if (await runtime.feedback?.keepReason(message)) {
    await origin.reply(FEEDBACK_REPLIES.reasonKept);
    return "answered";
  }
  const routed = await route(runtime, message, origin);
  if (routed.kind === "answered") return "answered";
  // A skill's instructions can carry a request near the limit over it.
  if (isTooLong(routed.text)) {
    await origin.reply(tooLongReply(routed.text.length));
    return "answered";
  }
  if (!(await passedGate(await runtime.gate.meter(message), refused))) return "refused";
  const { fresh } = await runtime.ungatedQueue.enqueue({
    ...message,
    text: routed.text,
    ...(routed.attachments ? { attachments: routed.attachments } : {}),
  });
  return fresh ? "queued" : "repeat";
}

/** The platform's own commands first, then the ones every channel shares. */
async function route(
  runtime: MessagePath,
  message: InboundMessage,
  origin: MessageOrigin,
): Promise<RoutedMessage> {
  const own = await origin.route?.(message);
  if (own) return own;
  const outcome = await routeChatText(message.text, message, origin.actor, chatContextOf(runtime));
  if (outcome.kind === "message") return outcome;
  await origin.reply(outcome.text);
  return { kind: "answered" };
}
