import { type Api, Composer, type Context } from "grammy";
import type { Message } from "grammy/types";
import type { InboundMessage } from "../../core/conversation.ts";
import { isApprovalPayload } from "../../ingress/approval-click.ts";
import { passedGate, type RefusalAnswer } from "../../ingress/gate-pass.ts";
import { type RoutedMessage, takeMessage } from "../../ingress/take-message.ts";
import { isFeedbackPayload } from "../../ports/feedback.ts";
import type { ChatAdmins } from "./admins.ts";
import { isTelegramError } from "./api.ts";
import { decodePress } from "./callback-data.ts";
import { answerChatCommand, answerPress, type TelegramCommandDeps } from "./commands.ts";
import type { TelegramConfig } from "./config-section.ts";
import { takeControlPress } from "./control-presses.ts";
import { escapeHtml } from "./format.ts";
import { RESERVED_COMMANDS, skillCommandName } from "./menu.ts";
import {
  isForBot,
  leadingCommand,
  normalizeTelegramMessage,
  type TelegramBotIdentity,
  telegramAddress,
} from "./normalize.ts";
import { sendReply } from "./replies.ts";
import { isTransientUpdateFailure } from "./update-failure.ts";

/** What taking updates needs besides the command UI. */
export interface TelegramIngressDeps extends TelegramCommandDeps {
  readonly api: () => Api;
  readonly bot: TelegramBotIdentity;
  readonly admins: ChatAdmins;
  /** The bot account these updates are for (`telegram.accounts`); unset for the only or default bot. */
  readonly account?: string;
  /** The config's `telegram:` section, read on every update. */
  readonly settings: () => TelegramConfig;
  /** An error for a log line, the token redacted. */
  readonly describe: (error: unknown) => string;
}

/**
 * The bot's middleware, behind the update dedupe: a message for the bot is
 * answered on the spot when it is a command or too long to read, else put
 * on the queue (a failed enqueue throws, so the update is tried again); a
 * press on a list's keyboard switches and edits the list in place.
 */
export function telegramIngress(deps: TelegramIngressDeps): Composer<Context> {
  const composer = new Composer<Context>();
  composer.on("message", (ctx) => takeUpdateMessage(ctx.message, deps));
  composer.on("callback_query:data", (ctx) => takePress(ctx, deps));
  return composer;
}

/** Whether a message is the bot's to answer (see {@link isForBot}), with this bot's own commands. */
export function isMessageForBot(message: Message, deps: TelegramIngressDeps): boolean {
  const chat = String(message.chat.id);
  return isForBot(message, deps.bot, (name) => isOwnCommand(name, deps, chat));
}

async function takeUpdateMessage(message: Message, deps: TelegramIngressDeps): Promise<void> {
  const { bot, runtime } = deps;
  if (message.new_chat_members?.some((member) => member.id === bot.id)) {
    return joined(message, deps);
  }
  if (!isMessageForBot(message, deps)) return;
  const inbound = normalizeTelegramMessage(message, {
    bot,
    conversation: deps.settings().conversation,
    ...(deps.account ? { account: deps.account } : {}),
  });
  if (!inbound) return;
  await takeMessage(runtime, inbound, {
    actor: () => deps.admins.actor(message.chat, message.from, message.sender_chat),
    // Not queued: the person hears why, once. Telegram away is tried again like Redis away;
    // a refusal (the bot was blocked) is not.
    reply: (text) =>
      sendReply(deps.api(), message, escapeHtml(text)).catch((error: unknown) => {
        if (isTransientUpdateFailure(error)) throw error;
        runtime.logger.warn("the answer to a Telegram message over the length limit was refused", {
          error: deps.describe(error),
        });
      }),
    // The update ledger keeps a redelivered update from being taken again.
    claimed: true,
    refusal: refusalAnswer(message, deps),
    admit: { canLeave: true },
    route: (taken) => answerCommand(message, taken, deps),
  });
}

/** Telegram's own command UI: lists with buttons, `/skill` and each skill's command, `/start`. */
async function answerCommand(
  message: Message,
  inbound: InboundMessage,
  deps: TelegramIngressDeps,
): Promise<RoutedMessage> {
  const { bot, runtime } = deps;
  // Read from the text without the bot's mention: "@bot /tools" is a command too.
  const typed = leadingCommand(inbound.text, []);
  const ours =
    typed &&
    (typed.target === undefined || typed.target.toLowerCase() === bot.username.toLowerCase());
  const outcome = await answerChatCommand(
    ours ? { name: typed.name, rest: typed.rest, text: inbound.text } : undefined,
    inbound.text,
    inbound,
    () => deps.admins.actor(message.chat, message.from, message.sender_chat),
    deps,
  );
  if (outcome.kind === "message") return outcome;
  // A reply that cannot be sent (the bot was removed meanwhile) must not hold up the updates after it.
  await sendReply(deps.api(), message, outcome.html, outcome.keyboard).catch((error: unknown) =>
    runtime.logger.warn("a Telegram command's answer could not be sent", {
      error: deps.describe(error),
    }),
  );
  return { kind: "answered" };
}

/**
 * The bot was added to a group: one not let in hears so once, and the bot
 * leaves (or stays silent, as `access.on_refused_group` says), before
 * anyone has asked it anything.
 */
async function joined(message: Message, deps: TelegramIngressDeps): Promise<void> {
  const chat = String(message.chat.id);
  const verdict = await deps.runtime.gate.admit(
    {
      ...telegramAddress(message.chat.id, undefined, "chat", deps.account),
      user: String(message.from?.id ?? chat),
      kind: "group",
      text: "",
      attachments: [],
      eventId: `${chat}:${message.message_id}`,
      time: message.date * 1000,
    },
    { canLeave: true },
  );
  await passedGate(verdict, refusalAnswer(message, deps));
}

/**
 * How a refusal is said in Telegram, and how the bot leaves a group it was
 * not let into. Like a command's answer, one that cannot be sent (the bot
 * was blocked or removed) does not hold up the updates after it.
 */
function refusalAnswer(message: Message, deps: TelegramIngressDeps): RefusalAnswer {
  const warn = (what: string) => (error: unknown) =>
    deps.runtime.logger.warn(what, { error: deps.describe(error) });
  return {
    say: (text) =>
      sendReply(deps.api(), message, escapeHtml(text)).catch(
        warn("a Telegram refusal could not be sent"),
      ),
    leave: () =>
      deps
        .api()
        .leaveChat(message.chat.id)
        .catch(warn("the bot could not leave a Telegram group it was not let into")),
  };
}

/**
 * A press on a list's keyboard: the switch is applied and the callback query
 * answered (the button stops spinning), then the message is edited in place
 * with the list as it is now.
 */
async function takePress(ctx: Context, deps: TelegramIngressDeps): Promise<void> {
  const query = ctx.callbackQuery;
  const message = query?.message;
  if (!query?.data) return;
  if (isApprovalPayload(query.data) || isFeedbackPayload(query.data)) {
    return takeControlPress(ctx, deps);
  }
  // Showing what a press did is not worth trying the update again: Telegram closes a query soon.
  const warn = (what: string) => (error: unknown) =>
    deps.runtime.logger.warn(what, { error: deps.describe(error) });
  const unanswered = warn("a Telegram button press could not be answered");
  if (!message || message.date === 0) {
    await ctx
      .answerCallbackQuery({ text: "This list is too old; send the command again." })
      .catch(unanswered);
    return;
  }
  const { registry } = deps.runtime.sources;
  const decoded = decodePress(query.data, (list) =>
    list === "tools" ? registry.list().map((t) => t.id) : skillNames(deps, String(message.chat.id)),
  );
  if (!decoded.ok) {
    await ctx
      .answerCallbackQuery({ text: decoded.problem.slice(0, 200), show_alert: true })
      .catch(unanswered);
    return;
  }
  const where = telegramAddress(
    message.chat.id,
    message.is_topic_message ? message.message_thread_id : undefined,
    deps.settings().conversation,
    deps.account,
  );
  const actor = await deps.admins.actor(message.chat, query.from);
  const outcome = await answerPress(decoded.press, where, actor, deps);
  await ctx
    .answerCallbackQuery({
      ...(outcome.toast !== "" ? { text: outcome.toast } : {}),
      show_alert: outcome.alert,
    })
    .catch(unanswered);
  const shown = await outcome.render();
  if (!shown) return;
  await deps
    .api()
    .editMessageText(message.chat.id, message.message_id, shown.html, {
      parse_mode: "HTML",
      reply_markup: shown.keyboard,
    })
    .catch((error: unknown) => {
      if (!isTelegramError(error, 400, /message is not modified/i)) {
        warn("a Telegram list could not be updated after a button press")(error);
      }
    });
}

/** `/tools`, `/skills`, `/skill`, `/start` and each skill's command: a bare one in a group is ours. */
function isOwnCommand(name: string, deps: TelegramIngressDeps, chat: string): boolean {
  if (RESERVED_COMMANDS.has(name)) return true;
  return skillNames(deps, chat).some((skill) => skillCommandName(skill) === name);
}

/** Every skill name a chat may have (no I/O: the library holds them). */
function skillNames(deps: TelegramIngressDeps, chat: string): string[] {
  const sources = deps.runtime.sources.skills?.sourcesFor({
    platform: "telegram",
    workspace: chat,
    channel: chat,
    conversation: chat,
  });
  return (sources ?? []).flatMap((source) => source.skills.map((s) => s.name));
}
