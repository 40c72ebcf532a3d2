import { isQueueMode, QUEUE_MODES } from "../../core/agent/queue-mode.ts";
import { queueBehaviourFor } from "../../core/config/index.ts";
import { settingOf } from "../../store/index.ts";
import { adminsOnly, type ChatCommand, mayUse } from "./registry.ts";
import { parseSettingArgs, scopeName } from "./setting-args.ts";

const USAGE = "/queue [collect|steer|followup|interrupt|default] [conversation|channel]";

const MEANING: Readonly<Record<string, string>> = {
  collect: "messages sent while I work make my next turn",
  steer: "messages sent while I work reach me before my next step",
  followup: "each message gets a turn of its own, in order",
  interrupt: "a new message stops what I'm doing and I start over with everything",
};

/** `/queue`: shows the queue mode here; admins set it for this conversation or channel. */
export const queueCommand: ChatCommand = {
  name: "queue",
  audience: "anyone",
  help: [
    { usage: "/queue", summary: "How I take messages sent while I work.", audience: "anyone" },
    {
      usage: "/queue <mode> [channel]",
      summary: `Sets it: ${QUEUE_MODES.join(", ")}, or default.`,
      audience: "admins",
    },
  ],
  async run({ args, where, actor, ctx }) {
    const parsed = parseSettingArgs(args, USAGE);
    if (parsed.kind === "bad") return { kind: "reply", text: parsed.problem };
    const store = ctx.sources.store.settings;
    if (parsed.kind === "show") {
      const stored = await store.read(where);
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
      return {
        kind: "reply",
        text: `Queue mode here: ${running} (${from}): ${MEANING[running]}. Modes: ${QUEUE_MODES.join(", ")}.`,
      };
    }
    if (!mayUse(actor, "admins", ctx.policy)) return adminsOnly("change the queue mode");
    if (parsed.value !== undefined && !isQueueMode(parsed.value)) {
      return {
        kind: "reply",
        text: `"${parsed.value.slice(0, 40)}" is not a queue mode. Use one of ${QUEUE_MODES.join(", ")}, or default.`,
      };
    }
    await store.write(parsed.scope, where, "queue", parsed.value);
    return {
      kind: "reply",
      text:
        parsed.value === undefined
          ? `The queue mode of ${scopeName(parsed.scope)} follows the config again, from my next turn.`
          : `Queue mode of ${scopeName(parsed.scope)} is now ${parsed.value}, from my next turn: ${MEANING[parsed.value]}.`,
    };
  },
};
