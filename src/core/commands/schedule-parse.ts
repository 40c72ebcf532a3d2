/** Where `/schedule add` puts a schedule: the conversation it was typed in, or a channel named in it. */
export type ScheduleTargetRef =
  | { readonly kind: "here" }
  /** `channel` is the platform's id when the reference carried one (a mention), else the name as typed. */
  | { readonly kind: "channel"; readonly channel: string; readonly isId: boolean };

/** A `/schedule` line, read. */
export type ScheduleCommand =
  | { readonly kind: "help" }
  /** `all`: every schedule of the workspace, not only this conversation's and the person's own. */
  | { readonly kind: "list"; readonly all: boolean }
  | {
      readonly kind: "add";
      /** The time as typed, between the quotes. */
      readonly when: string;
      readonly prompt: string;
      readonly target: ScheduleTargetRef;
    }
  | { readonly kind: "pause"; readonly id: string; readonly reason?: string }
  | { readonly kind: "resume" | "remove"; readonly id: string };

/** The grammar, as `/schedule help` and every error quote it. */
export const SCHEDULE_USAGE = [
  '/schedule add "<when>" <prompt> [in #channel|here]',
  "/schedule list [all]",
  "/schedule pause|resume|remove <id>",
] as const;

/**
 * A `/schedule` line that cannot be read: the message says what is wrong and
 * what to write, ready to show as it is.
 */
export class ScheduleCommandError extends Error {
  override readonly name = "ScheduleCommandError";
}

// Phones and Slack turn typed quotes into curly ones; each opening quote takes any closing one.
const QUOTED = /^(["“”„'‘’«])([\s\S]*?)(["“”'‘’»])(?:\s+|$)([\s\S]*)$/;
// A channel as the platforms write a mention (Slack `<#C0123|name>`, Discord `<#123>`), or `#name`.
const IN_CHANNEL = /\s+(?:in|to)\s+(?:<#([A-Za-z0-9_-]+)(?:\|[^>]*)?>|#([^\s#]+))$/i;
const HERE = /\s+(?:in\s+)?here$/i;

/**
 * Reads what follows `/schedule`.
 *
 * @throws ScheduleCommandError naming the problem and the form to use
 * @example
 * parseScheduleCommand('add "weekdays 09:00 Europe/Berlin" summarise yesterday in #incidents');
 * // { kind: "add", when: "weekdays 09:00 Europe/Berlin", prompt: "summarise yesterday",
 * //   target: { kind: "channel", channel: "incidents", isId: false } }
 */
export function parseScheduleCommand(args: string): ScheduleCommand {
  const text = args.trim();
  const [verb = "", ...rest] = text.split(/\s+/);
  const tail = text.slice(verb.length).trim();
  switch (verb.toLowerCase()) {
    case "":
    case "list":
    case "ls":
      return listOf(tail);
    case "help":
      return { kind: "help" };
    case "add":
    case "new":
      return addOf(tail);
    case "pause": {
      const id = idOf("pause", rest[0]);
      const reason = tail.slice(rest[0]?.length ?? 0).trim();
      return { kind: "pause", id, ...(reason !== "" ? { reason } : {}) };
    }
    case "resume":
    case "remove":
    case "delete":
    case "rm": {
      const kind = verb.toLowerCase() === "resume" ? "resume" : "remove";
      if (rest.length > 1) {
        throw new ScheduleCommandError(
          `/schedule ${kind} takes one id, not "${tail}". Use: /schedule ${kind} <id> (/schedule list shows the ids).`,
        );
      }
      return { kind, id: idOf(kind, rest[0]) };
    }
    default:
      throw new ScheduleCommandError(
        `"${verb}" is not a /schedule command. Use one of: ${SCHEDULE_USAGE.join(" · ")}`,
      );
  }
}

function listOf(tail: string): ScheduleCommand {
  if (tail === "") return { kind: "list", all: false };
  if (/^all$/i.test(tail)) return { kind: "list", all: true };
  throw new ScheduleCommandError(
    `/schedule list takes "all" or nothing, not "${tail}". Use: /schedule list [all]`,
  );
}

function idOf(verb: string, token: string | undefined): string {
  if (token === undefined || token === "") {
    throw new ScheduleCommandError(
      `Which schedule? Give its id: /schedule ${verb} <id> (/schedule list shows the ids).`,
    );
  }
  return token.toLowerCase();
}

function addOf(tail: string): ScheduleCommand {
  const quoted = QUOTED.exec(tail);
  if (!quoted) {
    throw new ScheduleCommandError(
      tail === ""
        ? `Say when and what: ${SCHEDULE_USAGE[0]}, e.g. /schedule add "weekdays 09:00 Europe/Berlin" summarise yesterday's incidents`
        : `Put the time in quotes, then the prompt: ${SCHEDULE_USAGE[0]}, e.g. /schedule add "every 2h" check the deploy queue`,
    );
  }
  const when = (quoted[2] ?? "").trim();
  let prompt = (quoted[4] ?? "").trim();
  let target: ScheduleTargetRef = { kind: "here" };
  const channel = IN_CHANNEL.exec(` ${prompt}`);
  if (channel) {
    prompt = ` ${prompt}`.slice(0, channel.index).trim();
    target = channel[1]
      ? { kind: "channel", channel: channel[1], isId: true }
      : { kind: "channel", channel: channel[2] ?? "", isId: false };
  } else if (HERE.test(` ${prompt}`)) {
    prompt = ` ${prompt}`.replace(HERE, "").trim();
  }
  if (when === "") {
    throw new ScheduleCommandError(
      `The quotes are empty: put the time in them, e.g. /schedule add "daily 18:00" post the day's summary`,
    );
  }
  if (prompt === "") {
    throw new ScheduleCommandError(
      `Say what I should do at each run, after the time: /schedule add "${when}" <prompt>`,
    );
  }
  return { kind: "add", when, prompt, target };
}
