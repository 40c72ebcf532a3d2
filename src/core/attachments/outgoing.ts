import type { AttachmentsConfig } from "../config/attachments-section.ts";
import { capOf, TURN_CAP_KEY } from "./caps.ts";
import { shownSize } from "./content.ts";
import { kindOf } from "./kind.ts";

/**
 * What became of one file a tool made: kept for the answer (the shell
 * stored its bytes under `ref`), or refused, with why.
 */
export type OutgoingVerdict =
  | { readonly kind: "kept"; readonly name: string; readonly type: string; readonly bytes: number }
  | {
      readonly kind: "refused";
      readonly name: string;
      readonly type: string;
      readonly bytes: number;
      readonly why: string;
    };

/**
 * Checks a file a tool made against the caps of files people send: its
 * kind's size cap, then what is left of the turn's total (`used`: the
 * bytes of this turn's files kept so far). Pure: the caller keeps count.
 */
export function judgeOutgoing(
  file: { readonly name: string; readonly type: string; readonly bytes: number },
  limits: AttachmentsConfig,
  used: number,
): OutgoingVerdict {
  const [cap, capKey] = capOf(kindOf(file.type, file.name), limits);
  if (file.bytes > cap) {
    return { kind: "refused", ...file, why: `it is over the ${shownSize(cap)} cap (${capKey})` };
  }
  if (used + file.bytes > limits.maxTurnBytes) {
    const left = Math.max(0, limits.maxTurnBytes - used);
    return {
      kind: "refused",
      ...file,
      why: `the files of one turn may total ${shownSize(limits.maxTurnBytes)} (${TURN_CAP_KEY}) and only ${shownSize(left)} was left`,
    };
  }
  return { kind: "kept", ...file };
}

/** The line the model reads for one file: that it will be sent, or why it was not. */
export function outgoingNote(verdict: OutgoingVerdict): string {
  const label = `${verdict.name} (${verdict.type}, ${shownSize(verdict.bytes)})`;
  if (verdict.kind === "kept") return `[file: ${label} will be sent with your answer]`;
  return `[file: ${label} was not sent: ${verdict.why}. Say so in your answer.]`;
}

/** A tool's text with a line per file after it, so the model knows what the person gets. */
export function withFileNotes(text: string, verdicts: readonly OutgoingVerdict[]): string {
  if (verdicts.length === 0) return text;
  const notes = verdicts.map(outgoingNote).join("\n");
  return text.trim() === "" ? notes : `${text}\n\n${notes}`;
}

/** What the answer says about a file this platform takes no uploads for. */
export function notSentHere(names: readonly string[]): string {
  const list = names.join(", ");
  return names.length === 1
    ? `_(The file ${list} could not be sent here: this platform takes no files from this bot.)_`
    : `_(The files ${list} could not be sent here: this platform takes no files from this bot.)_`;
}

/** What is posted when the platform refused a file, or its bytes were gone before it went out. */
export function notDelivered(name: string, why: string): string {
  return `_(The file ${name} could not be sent: ${why}.)_`;
}
