import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { delegatesAnywhere } from "../core/agents/index.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import { defineSkillTool } from "../core/skills/index.ts";
import type { AnyTool } from "../core/tools/tool.ts";
import type { ScheduleDesk } from "../ports/schedules.ts";
import { KeyScheme } from "../store/keys.ts";
import { askAgentTool } from "./ask-agent.ts";
import { DocumentStore, readAttachmentTool } from "./attachments/index.ts";
import { currentTimeTool } from "./current-time.ts";
import { memoryTools } from "./memory/index.ts";
import { type Reminder, reminderTools } from "./reminders/index.ts";
import { scheduleTaskTool } from "./schedule-task.ts";
import { type MessagingPorts, sendMessageTool } from "./send-message.ts";
import { webTools } from "./web/index.ts";

const NO_SKILLS = { skills: [], enabled: [], layers: [] };

/** What a built-in needs from the bot that runs it; the host hands it over at start. */
export interface BuiltinContext {
  readonly config: SwitchyardConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Memory and reminders; connects on first use. */
  readonly redis: Redis;
  readonly prefix: string;
  /** The reminder queue, made the first time a reminder is set. */
  readonly reminderQueue: () => Queue<Reminder>;
  /** The channels' outbounds and directories, for `send_message`. */
  readonly messaging: MessagingPorts;
  /** Where `schedule_task` makes schedules, made the first time one is. */
  readonly schedules: () => ScheduleDesk;
}

/**
 * One of Switchyard's built-in tools, or a family of them that shares a
 * store: a value a bot includes or leaves out. Built when the bot starts,
 * because most need what only the running bot has (its Redis, its config,
 * its channels).
 *
 * @example
 * import { builtins, createBot } from "switchyard";
 *
 * // Only the clock and the web tools; no memory, reminders or send_message.
 * const bot = createBot({ builtins: [builtins.currentTime, builtins.web] });
 */
export interface BuiltinTools {
  /** How the built-in is named in `builtins` and in errors. */
  readonly name: string;
  /** The tool ids it adds, in registry order. */
  readonly ids: readonly string[];
  build(context: BuiltinContext): AnyTool[];
}

const currentTime: BuiltinTools = {
  name: "currentTime",
  ids: ["current_time"],
  build: () => [currentTimeTool()],
};

/** The `skill` tool: the model loads a skill's body on demand. */
const skill: BuiltinTools = {
  name: "skill",
  ids: ["skill"],
  build: () => [defineSkillTool((ctx) => ctx.skills ?? NO_SKILLS)],
};

const web: BuiltinTools = {
  name: "web",
  ids: ["web_search", "fetch_url"],
  build: ({ config, env }) => webTools(config.web, { env }),
};

const memory: BuiltinTools = {
  name: "memory",
  ids: ["remember", "recall", "forget"],
  build: ({ config, redis, prefix }) => memoryTools({ redis, prefix, limits: config.memory }),
};

const reminders: BuiltinTools = {
  name: "reminders",
  ids: ["set_reminder", "list_reminders", "cancel_reminder"],
  build: ({ config, redis, prefix, reminderQueue }) =>
    reminderTools({ queue: reminderQueue, redis, prefix, defaults: config.reminders }),
};

/** `read_attachment`: long documents people sent, read page by page (off unless documents are kept). */
const readAttachment: BuiltinTools = {
  name: "readAttachment",
  ids: ["read_attachment"],
  build: ({ redis, prefix }) => {
    let documents: DocumentStore | undefined;
    return [
      readAttachmentTool(() => {
        documents ??= new DocumentStore(redis, new KeyScheme(prefix));
        return documents;
      }),
    ];
  },
};

const sendMessage: BuiltinTools = {
  name: "sendMessage",
  ids: ["send_message"],
  build: ({ messaging }) => [sendMessageTool(messaging)],
};

/** `schedule_task`: the model schedules a prompt in this conversation, as the person (asks first). */
const scheduleTask: BuiltinTools = {
  name: "scheduleTask",
  ids: ["schedule_task"],
  build: ({ config, schedules }) => [
    scheduleTaskTool({
      desk: schedules,
      zone: config.reminders.timeZone,
      policy: () => config.permissions,
    }),
  ],
};

/**
 * `ask_agent`: an agent hands a task to another (see docs/config/agents.md,
 * "Delegation"). Only a config whose agents (or top-level `agent:`) name `delegates:` has it, so
 * other bots list no such tool.
 */
const askAgent: BuiltinTools = {
  name: "askAgent",
  ids: ["ask_agent"],
  build: ({ config }) => (delegatesAnywhere(config) ? [askAgentTool()] : []),
};

/**
 * Every built-in, by name: `current_time`, the `skill` tool, `web_search`
 * and `fetch_url`, `remember`/`recall`/`forget`, the reminder tools,
 * `schedule_task` and `send_message`, `read_attachment`, and `ask_agent`.
 */
export const builtins = Object.freeze({
  currentTime,
  skill,
  web,
  memory,
  reminders,
  scheduleTask,
  sendMessage,
  readAttachment,
  askAgent,
});

/** The built-ins a bot has when it names none, in registry order (that of `builtins`). */
export const ALL_BUILTINS: readonly BuiltinTools[] = Object.freeze(Object.values(builtins));
