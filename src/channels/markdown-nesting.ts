import {
  BLANK,
  type Container,
  type Cursor,
  closesFence,
  type Fence,
  indented,
  openContainers,
  openFence,
  quoteMarker,
  skipIndent,
  startsNonParagraph,
  thematicBreaks,
} from "./markdown-containers.ts";

/**
 * Bounds how deeply the model's markdown nests block quotes and list items,
 * before it is parsed. micromark re-checks every open container on every
 * line and grows its stack with each one: 400 nested list levels cost it
 * seconds, 2,000 nested quotes take a large part of a second and break the
 * renderers, 5,000 overflow its stack. No chat shows such depth anyway.
 *
 * Nothing the person would read is dropped: a line nested deeper than the
 * limit keeps its text, and only the markers past the limit go. The first
 * container past the limit keeps its marker, so it becomes the deepest level
 * shown; deeper ones are dropped (quotes) or become its siblings (list
 * items), their indentation moved up to it. Code blocks are left as written.
 *
 * This is a line scanner that follows CommonMark's container rules (block
 * quotes, list items, lazy continuation, fenced and indented code) closely
 * enough to count nesting. Where it is unsure it counts a container too many,
 * never one too few, since only depth past the limit is rewritten.
 *
 * @example
 * boundNesting(`${"> ".repeat(2000)}deep`, 3);
 * // "> > > deep"
 */
export function boundNesting(markdown: string, max = MAX_NESTING): string {
  if (!Number.isInteger(max) || max < 1) {
    throw new RangeError(`boundNesting: max must be a whole number of at least 1, got ${max}`);
  }
  const scanner = new NestingScanner(max);
  const out: string[] = [];
  let changed = false;
  let start = 0;
  for (;;) {
    let end = start;
    while (end < markdown.length && markdown[end] !== "\n" && markdown[end] !== "\r") end++;
    const line = markdown.slice(start, end);
    const kept = scanner.next(line);
    if (kept !== line) changed = true;
    const eol = markdown.startsWith("\r\n", end) ? 2 : end < markdown.length ? 1 : 0;
    out.push(kept, markdown.slice(end, end + eol));
    if (eol === 0) break;
    start = end + eol;
  }
  return changed ? out.join("") : markdown;
}

/** The deepest nesting of quotes and list items that is parsed as such; the chat renderers show no more. */
export const MAX_NESTING = 16;

/** The first container past the limit, whose marker was written. */
interface Head {
  readonly index: number;
  /** What a line continuing it starts with after the kept prefix. */
  readonly continuation: string;
}

class NestingScanner {
  readonly #keep: number;
  readonly #stack: Container[] = [];
  /** Where the quotes are in the stack, ascending: a blank line continues the list items before the first. */
  readonly #quotes: number[] = [];
  #fence: Fence | undefined;
  /** The line before left a paragraph open, which a line without markers may continue lazily. */
  #paragraph = false;
  #head: Head | undefined;

  constructor(max: number) {
    // The first container past the kept ones is the deepest level shown.
    this.#keep = max - 1;
  }

  /** The line as it should be parsed: as written, unless it nests past the limit. */
  next(line: string): string {
    if (BLANK.test(line)) return this.#blank(line);
    const breaks = thematicBreaks(line);
    let at: Cursor = { pos: 0, col: 0 };
    let keepEnd = 0;
    let matched = 0;
    for (; matched < this.#stack.length; matched++) {
      const container = this.#stack[matched] as Container;
      const after = container.quote ? quoteMarker(line, at) : indented(line, at, container.width);
      if (after === undefined) break;
      at = after;
      if (matched < this.#keep) keepEnd = at.pos;
    }
    if (this.#fence !== undefined) {
      if (matched >= this.#fence.depth) {
        if (closesFence(line, at, this.#fence)) this.#fence = undefined;
        return this.#emit(line, keepEnd, at.pos, matched, undefined);
      }
      this.#fence = undefined;
    }
    const allMatched = matched === this.#stack.length;
    const opened = openContainers(line, at, allMatched && this.#paragraph, breaks);
    const cursor = opened.at(-1)?.end ?? at;
    const startsBlock = startsNonParagraph(line, cursor, breaks);
    if (opened.length === 0 && !allMatched && this.#paragraph && !startsBlock) {
      // Lazy continuation: the containers stay open.
      return this.#emit(line, keepEnd, at.pos, matched, undefined);
    }
    this.#truncate(matched);
    let written: string | undefined;
    for (const { container, marker, end } of opened) {
      const index = this.#stack.length;
      this.#push(container);
      if (index < this.#keep) keepEnd = end.pos;
      else if (written === undefined) {
        written = container.quote ? "> " : `${marker} `;
        this.#head = {
          index,
          continuation: container.quote ? "> " : " ".repeat(marker.length + 1),
        };
      }
    }
    const fence = openFence(line, cursor);
    if (fence !== undefined) {
      this.#fence = { ...fence, depth: this.#stack.length };
      this.#paragraph = false;
    } else {
      const continues = this.#paragraph && opened.length === 0;
      this.#paragraph = BLANK.test(line.slice(cursor.pos))
        ? false
        : skipIndent(line, cursor) === undefined
          ? continues
          : !startsBlock;
    }
    return this.#emit(line, keepEnd, cursor.pos, matched, written);
  }

  #blank(line: string): string {
    // A blank line continues list items but no quote; it ends no code block by itself.
    const matched = this.#quotes[0] ?? this.#stack.length;
    if (this.#fence !== undefined && matched >= this.#fence.depth) return line;
    this.#fence = undefined;
    this.#truncate(matched);
    this.#paragraph = false;
    return line;
  }

  /**
   * The kept containers' prefix as written, then the marker or continuation
   * of the level past the limit, then the line's content.
   */
  #emit(
    line: string,
    keepEnd: number,
    contentStart: number,
    matched: number,
    written: string | undefined,
  ): string {
    if (keepEnd === contentStart && written === undefined) return line;
    const head = this.#head;
    const middle = written ?? (head !== undefined && head.index < matched ? head.continuation : "");
    return line.slice(0, keepEnd) + middle + line.slice(contentStart);
  }

  #push(container: Container): void {
    if (container.quote) this.#quotes.push(this.#stack.length);
    this.#stack.push(container);
  }

  #truncate(length: number): void {
    this.#stack.length = Math.min(this.#stack.length, length);
    while ((this.#quotes.at(-1) ?? -1) >= length) this.#quotes.pop();
    if (this.#head !== undefined && this.#head.index >= length) this.#head = undefined;
  }
}
