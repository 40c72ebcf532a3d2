import {
  type AutocompleteInteraction,
  type ChatInputCommandInteraction,
  type Client,
  type Interaction,
  MessageFlags,
  type RepliableInteraction,
  Routes,
} from "discord.js";
import { isApprovalPayload } from "../../ingress/approval-click.ts";
import type { ChannelRuntime } from "../../ingress/channel.ts";
import { type CommandOrigin, commandRefusal } from "../../ingress/command-gate.ts";
import type { EventLedger } from "../../ingress/event-ledger.ts";
import { isFeedbackPayload } from "../../ports/feedback.ts";
import { answerControlClick } from "./control-clicks.ts";
import { isListClick } from "./custom-id.ts";
import { answerAutocomplete, answerCommand, answerListClick, whereOf } from "./interactions.ts";
import { answerSharedCommand, SHARED_COMMAND_NAMES } from "./shared-commands.ts";

/** The application commands the bot registers (commands.ts); any other name is not its own. */
const OWN_COMMANDS: ReadonlySet<string> = new Set(["tools", "skills"]);
const SHARED: ReadonlySet<string> = new Set(SHARED_COMMAND_NAMES);

/** Discord drops an autocomplete answer after 3 s; give up a little before and offer nothing. */
const AUTOCOMPLETE_DEADLINE_MS = 2_500;

/** What the router needs besides the interaction. */
export interface InteractionContext {
  readonly runtime: ChannelRuntime;
  /** Interaction ids taken, so a replayed or twice-received interaction runs once. */
  readonly ledger: Pick<EventLedger, "take">;
  /**
   * How long a deferred answer may take before the person is told it failed
   * (Discord keeps the interaction open for 15 minutes; nobody waits that long).
   */
  readonly deadlineMs: number;
  /** The bot account of `discord.accounts` this client is; unset for the only one. */
  readonly account?: string;
  /** Logs and counts a failure the router survived. */
  readonly report: (error: unknown, fields: Record<string, unknown>) => void;
}

/** A handler that outlived its deadline; the person was told. */
export class InteractionDeadlineError extends Error {
  override readonly name = "InteractionDeadlineError";
}

/**
 * Answers every interaction exactly once, whatever it is: `/tools` and
 * `/skills` (deferred, then edited with the answer), their autocompletion,
 * and clicks on their messages; anything else the bot does not own (another
 * command name, a context-menu command, a component of another message, a
 * modal) gets an ephemeral reply at once saying so. A handler that throws or
 * outlives `deadlineMs` leaves the person an error answer, never "thinking…".
 *
 * The interaction id is claimed in the ledger first: a RESUME replay or a
 * second ingress process receiving the same interaction does nothing.
 */
export async function routeInteraction(i: Interaction, ctx: InteractionContext): Promise<void> {
  await ctx.ledger.take(`interaction:${i.id}`, () => answer(i, ctx));
}

async function answer(i: Interaction, ctx: InteractionContext): Promise<void> {
  const { runtime } = ctx;
  if (i.isAutocomplete()) return autocomplete(i, ctx);
  if (i.isChatInputCommand() && (OWN_COMMANDS.has(i.commandName) || SHARED.has(i.commandName))) {
    const run = OWN_COMMANDS.has(i.commandName) ? answerCommand : answerSharedCommand;
    return finish(i, ctx, `/${i.commandName}`, gated(i, runtime, run, ctx.account));
  }
  if (i.isCommand()) {
    return replyAtOnce(
      i,
      `${i.isChatInputCommand() ? `/${i.commandName}` : `"${i.commandName}"`} is not one of my commands, so nothing was done. Mine are /help, /tools and /skills; /help lists the rest.`,
    );
  }
  if (i.isButton() && (isApprovalPayload(i.customId) || isFeedbackPayload(i.customId))) {
    return finish(i, ctx, "the click", answerControlClick(i, runtime));
  }
  if ((i.isButton() || i.isStringSelectMenu()) && isListClick(i.customId)) {
    return finish(i, ctx, "the click", answerListClick(i, runtime, ctx.account));
  }
  if (i.isMessageComponent()) {
    return replyAtOnce(
      i,
      "That control is not one of mine (it may belong to another app, or to a message from an older version of me), so nothing was done. /tools and /skills show fresh ones.",
    );
  }
  if (i.isModalSubmit()) {
    return replyAtOnce(i, "I don't open forms, so I can't take this one; nothing was done.");
  }
}

/**
 * Waits for a handler up to the deadline. A handler that throws is answered
 * with an error; one that is late is answered with "still working", and
 * whatever it does later (its own answer, if it ever comes) is left to it.
 */
async function finish(
  i: RepliableInteraction,
  ctx: InteractionContext,
  what: string,
  work: Promise<void>,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ctx.deadlineMs);
  });
  const settled = work.then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const outcome = await Promise.race([settled, late]);
  clearTimeout(timer);
  if (outcome === "late") {
    ctx.report(
      new InteractionDeadlineError(`${what} was not answered within ${ctx.deadlineMs} ms`),
      { interaction: i.id },
    );
    // A late failure is logged, not answered twice.
    void settled.then((result) => {
      if (!result.ok) ctx.report(result.error, { interaction: i.id, late: true });
    });
    return answerFailure(
      i,
      `Answering ${what} is taking too long, so I stopped waiting. It may still go through: run the command again in a moment to see where things stand.`,
    );
  }
  if (outcome.ok) return;
  ctx.report(outcome.error, { interaction: i.id });
  return answerFailure(
    i,
    `Something went wrong answering ${what}, and nothing more will come of this one. Try again in a moment; if it keeps failing, the bot's logs say why.`,
  );
}

/**
 * Says it failed, wherever the interaction stands: the deferred reply of a
 * command is edited, a click whose message was being updated gets an
 * ephemeral follow-up (the list it came from stays), and one not answered
 * at all gets an ephemeral reply.
 */
async function answerFailure(i: RepliableInteraction, text: string): Promise<void> {
  if (!i.deferred && !i.replied) return replyAtOnce(i, text);
  if (i.isMessageComponent()) {
    await i.followUp({ content: text, flags: MessageFlags.Ephemeral });
    return;
  }
  await i.editReply({ content: text, components: [] });
}

async function replyAtOnce(i: RepliableInteraction, text: string): Promise<void> {
  await i.reply({ content: text, flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } });
}

/** Autocomplete cannot show an error: a failure or a slow answer offers no choices. */
async function autocomplete(i: AutocompleteInteraction, ctx: InteractionContext): Promise<void> {
  if (!OWN_COMMANDS.has(i.commandName)) return i.respond([]);
  let timer: NodeJS.Timeout | undefined;
  const work = answerAutocomplete(i, ctx.runtime, ctx.account);
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), AUTOCOMPLETE_DEADLINE_MS);
  });
  try {
    if ((await Promise.race([work.then(() => "done" as const), late])) === "done") return;
    work.catch((error: unknown) => ctx.report(error, { interaction: i.id, late: true }));
    ctx.report(new InteractionDeadlineError("autocompletion was too slow"), { interaction: i.id });
  } catch (error) {
    ctx.report(error, { interaction: i.id });
  } finally {
    clearTimeout(timer);
  }
  if (!i.responded) await i.respond([]);
}

/** Said to an interaction discord.js could not read. */
const UNREADABLE =
  "Discord sent me this interaction in a shape I could not read, so nothing was done. Try again; if it keeps happening, the bot's logs say why.";

/**
 * Answers an INTERACTION_CREATE that discord.js could not turn into an
 * interaction (see gateway-guard.ts) straight from its raw id and token, so
 * the person is not left with "the application did not respond". An
 * autocompletion (type 4) can only be answered with choices: none.
 */
export async function answerUnreadable(
  client: Client,
  raw: unknown,
  take: InteractionContext["ledger"]["take"],
): Promise<void> {
  const d = raw as Record<string, unknown> | null | undefined;
  const { id, token, type } = d ?? {};
  if (typeof id !== "string" || typeof token !== "string") return;
  const body =
    type === 4
      ? { type: 8, data: { choices: [] } }
      : { type: 4, data: { content: UNREADABLE, flags: MessageFlags.Ephemeral } };
  await take(`interaction:${id}`, async () => {
    await client.rest.post(Routes.interactionCallback(id, token), { body, auth: false });
  });
}

/**
 * Runs a command once its person and place pass the access gate, as a typed
 * one does; a refused one is answered with why. Inside `finish`, so a gate
 * that fails (Redis away) is answered like any failed command.
 */
async function gated(
  i: ChatInputCommandInteraction,
  runtime: ChannelRuntime,
  run: (i: ChatInputCommandInteraction, runtime: ChannelRuntime, account?: string) => Promise<void>,
  account: string | undefined,
): Promise<void> {
  const origin = commandOrigin(i, account);
  // Without a channel the command's own answer says what is missing.
  const refusal = origin && (await commandRefusal(runtime, origin, `/${i.commandName}`));
  if (refusal !== undefined) return replyAtOnce(i, refusal);
  return run(i, runtime, account);
}

/** An application command as the access gate reads it: in a server a group, else a DM. */
function commandOrigin(
  i: ChatInputCommandInteraction,
  account: string | undefined,
): CommandOrigin | undefined {
  if (!i.channelId) return undefined;
  return {
    ...whereOf(i, account),
    user: i.user.id,
    kind: i.guildId ? "group" : "dm",
    eventId: `interaction:${i.id}`,
  };
}
