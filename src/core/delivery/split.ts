/**
 * Splits an answer into messages of at most `max` characters, at the best
 * boundary available (paragraph, line, sentence, word), without breaking a
 * fenced code block: a block cut in two is closed at the end of one part and
 * reopened, with its language (and its quote markers, for a quoted block),
 * at the start of the next. Joining the parts without the added fences gives
 * back the original text, less the whitespace between parts: a part would
 * never be only whitespace, which no platform posts.
 *
 * Any text is safe: a cut never falls inside a surrogate pair, a line longer
 * than `max` is cut hard, and a fence too long to repeat in every part (a
 * 1,000-character info string, 2,000 quote markers) is left as text.
 *
 * @example
 * splitMessage(answer, 4000).forEach((part) => outbound.post(target, part, options));
 */
export function splitMessage(text: string, max: number): string[] {
  if (!Number.isInteger(max) || max < 32) {
    throw new RangeError(`splitMessage: max must be a whole number of at least 32, got ${max}`);
  }
  if (text.length <= max) return [text];
  const parts: string[] = [];
  let rest = text;
  let open: Fence | undefined;
  while (rest.length > 0) {
    const prefix = open?.repeat ? `${open.reopen}\n` : "";
    if (prefix.length + rest.length <= max) {
      if (/\S/.test(rest)) parts.push(prefix + rest);
      break;
    }
    // Room for the usual closing fence first; if the part ends inside a
    // longer one, cut again leaving room for the longest fence tracked.
    const usual = open?.repeat ? open.close.length + 1 : 4;
    let part = cutAt(rest, max - prefix.length - usual, open, max);
    if (prefix.length + part.text.length > max) {
      part = cutAt(rest, max - prefix.length - longestFence(max) - 1, open, max);
    }
    rest = rest.slice(part.cut);
    if (/\S/.test(part.chunk)) parts.push(prefix + part.text);
    open = part.after;
  }
  return parts.length > 0 ? parts : [text.trim()];
}

/** A fenced code block open at a cut. */
interface Fence {
  /** The opening line the next part starts with: quote markers, the fence, the language. */
  readonly reopen: string;
  /** The closing line this part ends with. */
  readonly close: string;
  readonly char: string;
  readonly length: number;
  /** Short enough to close and reopen at a cut; a longer one is still followed, to know where it ends. */
  readonly repeat: boolean;
}

/** The fence line: the quote markers and indentation before it, the fence, the info string. */
const FENCE_LINE = /^((?:[ \t]*>)*[ \t]*)(`{3,}|~{3,})(.*)$/;

/** A fence longer than this to reopen and close is left as text: repeating it would crowd out the part. */
function longestFence(max: number): number {
  return Math.floor(max / 4);
}

function cutAt(
  rest: string,
  budget: number,
  open: Fence | undefined,
  max: number,
): { chunk: string; cut: number; text: string; after: Fence | undefined } {
  const cut = bestCut(rest, budget);
  const chunk = rest.slice(0, cut);
  const after = fenceStateAfter(chunk, open, max);
  const text = after?.repeat ? `${chunk}${chunk.endsWith("\n") ? "" : "\n"}${after.close}` : chunk;
  return { chunk, cut, text, after };
}

function bestCut(text: string, budget: number): number {
  const window = text.slice(0, budget);
  for (const boundary of ["\n\n", "\n", ". ", " "]) {
    const at = window.lastIndexOf(boundary);
    if (at > budget / 2) return at + boundary.length;
  }
  return hardCut(text, budget);
}

/** Where to cut `text` to at most `budget` units: never between the two halves of a surrogate pair (an emoji). */
function hardCut(text: string, budget: number): number {
  if (text.length <= budget) return text.length;
  const high = text.charCodeAt(budget - 1);
  return high >= 0xd800 && high <= 0xdbff ? budget - 1 : budget;
}

/** The first `max` UTF-16 units of `text` or fewer, never half an emoji. */
export function clip(text: string, max: number): string {
  return text.slice(0, hardCut(text, Math.max(0, max)));
}

/** The fence still open after `chunk`, given the one open before it. */
function fenceStateAfter(chunk: string, open: Fence | undefined, max: number): Fence | undefined {
  let state = open;
  for (const line of chunk.split("\n")) {
    const match = FENCE_LINE.exec(line);
    if (!match) continue;
    const [, before = "", run = "", info = ""] = match;
    if (state !== undefined) {
      // Only the same character, at least as many times, with nothing after, closes a block.
      if (run[0] === state.char && run.length >= state.length && info.trim() === "") {
        state = undefined;
      }
      continue;
    }
    // A backtick fence's info string has no backticks (else it is a code span).
    if (run[0] === "`" && info.includes("`")) continue;
    const quotes = "> ".repeat((before.match(/>/g) ?? []).length);
    const language = info.trim().split(/\s/)[0] ?? "";
    const reopen = `${quotes}${run}${language}`;
    const close = `${quotes}${run}`;
    const repeat = reopen.length + close.length + 2 <= longestFence(max);
    state = { reopen, close, char: run[0] as string, length: run.length, repeat };
  }
  return state;
}
