import type { ApprovalPolicy, ApprovalWait, DecidedBy, PendingCall } from "./approval.ts";

/** How much of one call's arguments the request shows; the rest is behind "Show arguments". */
export const SHOWN_ARGUMENT_CHARS = 240;

/** The most a "Show arguments" answer carries: every platform can post it (split where needed). */
export const DETAILS_MAX_CHARS = 12_000;

/**
 * The approval request as a person reads it, channel-neutral: which tools
 * the bot wants to run, with their arguments (made harmless and cut to a
 * readable length), who may decide and until when. The buttons are the
 * shell's (`requestControls` in src/turn/approval-wait.ts).
 *
 * @example
 * requestText(wait, DEFAULT_APPROVAL_POLICY)
 * // "Approval needed: the bot wants to run deploy.\n• deploy `{"env":"prod"}`\nAlice (who asked), admins or the bot's owners can decide, until 21:45 UTC."
 */
export function requestText(wait: ApprovalWait, policy: ApprovalPolicy): string {
  const tools = [...new Set(wait.calls.map((c) => c.tool))];
  const lines = [`Approval needed: the bot wants to run ${listOf(tools)}.`];
  for (const call of wait.calls) lines.push(`• ${call.tool} ${shownArguments(call)}`);
  lines.push(
    `${whoMayDecide(policy, wait.requester)} can decide, until ${clockOf(wait.expiresAt)}.`,
  );
  return lines.join("\n");
}

/** Every call with its whole arguments (pretty-printed, harmless), for "Show arguments". */
export function detailsText(wait: ApprovalWait): string {
  const parts = wait.calls.map((call) => `${call.tool}:\n${fenced(pretty(call.arguments))}`);
  return cut(parts.join("\n\n"), DETAILS_MAX_CHARS);
}

/** "Alice (who asked), admins or the bot's owners": who may decide under `policy`. */
export function whoMayDecide(policy: ApprovalPolicy, requester: DecidedBy): string {
  if (policy.approvers.includes("anyone")) return "Anyone here";
  const who: string[] = [];
  if (policy.approvers.includes("requester")) who.push(`${nameOf(requester)} (who asked)`);
  if (policy.approvers.includes("admins")) who.push("admins");
  who.push("the bot's owners");
  return listOf(who, "or");
}

/** Who decided, as texts name them: the display name when the platform gave one. */
export function nameOf(by: DecidedBy): string {
  return safeText(by.name ?? by.user);
}

/** One call's arguments on one line, compact and cut. */
function shownArguments(call: PendingCall): string {
  return inlineCode(cut(compact(call.arguments), SHOWN_ARGUMENT_CHARS));
}

/** The arguments as compact JSON when they parse, else as sent (a model may send broken JSON). */
function compact(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    return raw.replace(/\s+/g, " ").trim();
  }
}

function pretty(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/**
 * Text from the model made harmless in any channel: no control characters,
 * no mass mentions or user pings (`@everyone`, `<@U123>`, `<!channel>`), no
 * backticks to break out of the code span it is shown in.
 */
export function safeText(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, "")
      .replace(/`/g, "ˋ")
      .replace(/@(everyone|here|channel)/gi, "@\u2060$1")
      .replace(/<([@!#])/g, "<\u2060$1")
  );
}

function inlineCode(text: string): string {
  return `\`${safeText(text).replace(/\n/g, " ")}\``;
}

function fenced(text: string): string {
  return `\`\`\`\n${safeText(text)}\n\`\`\``;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** "21:45 UTC": a clock every reader can place, whatever their platform's time zone. */
export function clockOf(at: number): string {
  return `${new Date(at).toISOString().slice(11, 16)} UTC`;
}

/** "a, b and c". */
export function listOf(items: readonly string[], last = "and"): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} ${last} ${items.at(-1)}`;
}
