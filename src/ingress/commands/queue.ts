import { isQueueMode, QUEUE_MODES } from "../../core/agent/queue-mode.ts";
import { queueBehaviourFor } from "../../core/config/index.ts";
import { settingOf } from "../../store/index.ts";
import type { ChatCommand } from "./registry.ts";
import { scopeName } from "./setting-args.ts";
import { settingCommand } from "./setting-command.ts";

const USAGE = "/queue [collect|steer|followup|interrupt|default] [conversation|channel]";

const MEANING: Readonly<Record<string, string>> = {
  collect: "messages sent while I work make my next turn",
  steer: "messages sent while I work reach me before my next step",
  followup: "each message gets a turn of its own, in order",
  interrupt: "a new message stops what I'm doing and I start over with everything",
};

/** `/queue`: shows the queue mode here; admins set it for this conversation or channel. */
export const queueCommand: ChatCommand = settingCommand({
  name: "queue",
  usage: USAGE,
  summary: "How I take messages sent while I work.",
  setForm: ["/queue <mode> [channel]", `Sets it: ${QUEUE_MODES.join(", ")}, or default.`],
  change: "change the queue mode",
  show(stored, { where, ctx }) {
    const raw = settingOf(stored, "queue");
    const chosen = isQueueMode(raw) ? raw : undefined;
    const mode = chosen ?? queueBehaviourFor(ctx.sources.config().queue, where).mode;
    const running = ctx.queueBehaviour?.(where, chosen).mode ?? mode;
    const from =
      running !== mode
        ? "set by SWITCHYARD_QUEUE_MODE for every conversation"
        : chosen === undefined
          ? "from the config"
          : stored.conversation.queue === chosen
            ? "set for this conversation"
            : "set for this channel";
    return `Queue mode here: ${running} (${from}): ${MEANING[running]}. Modes: ${QUEUE_MODES.join(", ")}.`;
  },
  refuse(value) {
    if (isQueueMode(value)) return undefined;
    return `"${value.slice(0, 40)}" is not a queue mode. Use one of ${QUEUE_MODES.join(", ")}, or default.`;
  },
  changed(scope, value) {
    return value === undefined
      ? `The queue mode of ${scopeName(scope)} follows the config again, from my next turn.`
      : `Queue mode of ${scopeName(scope)} is now ${value}, from my next turn: ${MEANING[value]}.`;
  },
});
