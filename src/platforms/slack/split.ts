import { splitMessage } from "../../core/delivery/split.ts";

/** Stands for a space inside a token while splitting, so no cut falls there; format.ts drops it from the model's text. */
const TOKEN_SPACE = "\uE004";

export interface SlackSplitOptions {
  /** The longest section; a section block's text takes at most 3000 characters. */
  readonly maxChars?: number;
  /** The most characters in one message; Slack truncates a message's text past 40,000. */
  readonly maxMessage?: number;
  /** The most sections in one message; a message takes at most 50 blocks. */
  readonly maxSections?: number;
}

/** One Slack message of a long answer. */
export interface SlackChunk {
  /** Section texts, each within `maxChars`, each with its code fences balanced. */
  readonly sections: readonly string[];
  /** The sections joined: the message as plain mrkdwn (also its notification text). */
  readonly text: string;
}

/**
 * Splits mrkdwn into messages of sections that fit Slack's limits, at a
 * paragraph, line, sentence or word boundary, never inside a code block (one
 * cut in two is closed and reopened, see {@link splitMessage}) and never
 * inside a link or mention. Only a run of more than half a section without
 * any whitespace is cut hard, wherever the limit falls.
 *
 * @example
 * for (const chunk of splitForSlack(toMrkdwn(answer))) {
 *   await client.chat.postMessage({ channel, thread_ts, text: chunk.text,
 *     blocks: chunk.sections.map((text) => ({ type: "section", text: { type: "mrkdwn", text } })) });
 * }
 */
export function splitForSlack(mrkdwn: string, options: SlackSplitOptions = {}): SlackChunk[] {
  const { maxChars = 3000, maxMessage = 40_000, maxSections = 50 } = options;
  if (maxMessage < maxChars || maxSections < 1) {
    throw new RangeError(
      `splitForSlack: maxMessage (${maxMessage}) must be at least maxChars (${maxChars}), and maxSections (${maxSections}) at least 1`,
    );
  }
  const protect = !mrkdwn.includes(TOKEN_SPACE);
  const text = protect
    ? mrkdwn.replace(/<[^<>\n]+>/g, (token) => token.replaceAll(" ", TOKEN_SPACE))
    : mrkdwn;
  const sections = splitMessage(text, maxChars).map((s) =>
    protect ? s.replaceAll(TOKEN_SPACE, " ") : s,
  );
  const chunks: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const section of sections) {
    if (
      current.length > 0 &&
      (size + section.length > maxMessage || current.length >= maxSections)
    ) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(section);
    size += section.length;
  }
  if (current.length > 0) chunks.push(current);
  return chunks.map((s) => ({ sections: s, text: s.join("") }));
}
