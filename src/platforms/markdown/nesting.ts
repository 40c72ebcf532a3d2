import {
  BLANK,
  type Container,
  type Cursor,
  closesFence,
  type Fence,
  indented,
  type Opened,
  openContainers,
  openFence,
  quoteMarker,
  skipIndent,
  startsNonParagraph,
  thematicBreaks,
} from "./containers.ts";

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
 * shown. Deeper ones opened on its line are dropped; opened on a later line,
 * they become its siblings, written with its marker and width, their
 * indentation moved up to it. Code blocks are left as written.
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

/** A GFM table's delimiter row, read loosely (a line taken for one only lets lists start more freely). */
const DELIMITER_ROW = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

/** A setext heading's underline, after its indentation. */
const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*$/;

/** The first container past the limit, whose marker is written. */
interface Head {
  /** Its marker as written: deeper containers opened while it is open are written the same. */
  readonly marker: string;
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
  /**
   * The open paragraph has a line that reads as a table's delimiter row: it
   * may be a table, which any list may interrupt (a paragraph only a list
   * starting at 1 with content).
   */
  #table = false;
  /**
   * Indented code is open, through blank lines: micromark then holds lists
   * to a paragraph's rule too (CommonMark does not).
   */
  #code = false;
  #head: Head | undefined;
  /** Where the list item the line before opened with nothing in it is: a blank line closes it. */
  #emptyItem: number | undefined;
  /** A blank line closed an empty item: micromark closes it only at the next line, as a lazy one. */
  #closedLate = false;

  constructor(max: number) {
    // The first container past the kept ones is the deepest level shown.
    this.#keep = max - 1;
  }

  /** The line as it should be parsed: as written, unless it nests past the limit. */
  next(line: string): string {
    const breaks = thematicBreaks(line);
    let at: Cursor = { pos: 0, col: 0 };
    let keep: Cursor = { pos: 0, col: 0 };
    let matched = 0;
    for (; matched < this.#stack.length; matched++) {
      const container = this.#stack[matched] as Container;
      const after = container.quote ? quoteMarker(line, at) : indented(line, at, container.width);
      if (after === undefined) break;
      at = after;
      if (matched < this.#keep) keep = at;
    }
    if (BLANK.test(line.slice(at.pos))) return this.#blank(line, keep, at, matched);
    const closedLate = this.#closedLate;
    this.#closedLate = false;
    if (this.#fence !== undefined) {
      if (matched >= this.#fence.depth) {
        if (closesFence(line, at, this.#fence)) this.#fence = undefined;
        return this.#emit(line, keep, at, matched, undefined);
      }
      this.#fence = undefined;
    }
    const allMatched = matched === this.#stack.length;
    const interrupts = allMatched && ((this.#paragraph && !this.#table) || this.#code);
    const opened = openContainers(line, at, interrupts, breaks);
    const cursor = opened.at(-1)?.end ?? at;
    const startsBlock = startsNonParagraph(line, cursor, breaks);
    if (opened.length === 0 && !allMatched && this.#paragraph && !startsBlock) {
      // Lazy continuation: the containers stay open.
      return this.#emit(line, keep, at, matched, undefined);
    }
    this.#truncate(matched);
    const { kept, written } = this.#open(opened, keep);
    keep = kept;
    this.#emptyItem = opened.at(-1)?.empty === true ? this.#stack.length - 1 : undefined;
    const fence = openFence(line, cursor);
    if (fence !== undefined) {
      this.#fence = { ...fence, depth: this.#stack.length };
      this.#paragraph = false;
      this.#code = false;
    } else {
      const continues = this.#paragraph && opened.length === 0;
      const blank = BLANK.test(line.slice(cursor.pos));
      const code = skipIndent(line, cursor) === undefined;
      // Not on a line that closed containers without opening one: micromark
      // hands that line to the flow it left, and the code is not held open.
      const lazy = (!allMatched || closedLate) && opened.length === 0;
      this.#code = code && !continues && !blank && !lazy;
      // A setext underline ends the paragraph it makes a heading of.
      const start = continues && allMatched ? skipIndent(line, cursor) : undefined;
      const underline = start !== undefined && SETEXT_UNDERLINE.test(line.slice(start.pos));
      this.#paragraph = blank || underline ? false : code ? continues : !startsBlock;
      this.#table =
        this.#paragraph && continues && (this.#table || DELIMITER_ROW.test(line.slice(cursor.pos)));
    }
    if (!this.#paragraph) this.#table = false;
    // A marker only the paragraph's rule kept from opening a list may open
    // one once the line is rewritten, where that paragraph may not be open.
    const held =
      interrupts &&
      (written !== undefined || matched > this.#keep) &&
      openContainers(line, cursor, false, breaks).length > 0;
    return this.#emit(line, keep, cursor, matched, written, held);
  }

  /**
   * Pushes what the line opens. Returns where the kept containers end and
   * the marker to write past them: none when the line opens nothing past
   * the limit, null when it opens only the first container past it (the
   * line stays as written).
   */
  #open(opened: readonly Opened[], keep: Cursor): { kept: Cursor; written?: string | null } {
    let kept = keep;
    for (const [i, { container, marker, end }] of opened.entries()) {
      const index = this.#stack.length;
      this.#push(container);
      if (index < this.#keep) {
        kept = end;
        continue;
      }
      const fresh = this.#head === undefined;
      // Deeper ones become its siblings, written with its marker so that
      // they continue what it would and no more.
      this.#head ??= {
        marker: container.quote ? "> " : marker,
        continuation: container.quote ? "> " : " ".repeat(container.width),
      };
      for (const rest of opened.slice(i + 1)) this.#push(rest.container);
      return { kept, written: fresh && i === opened.length - 1 ? null : this.#head.marker };
    }
    return { kept };
  }

  /**
   * A line blank after the markers it matched: it continues the list items
   * past them but no quote, and closes an item opened empty on the line
   * before (an item begins with at most one blank line).
   */
  #blank(line: string, keep: Cursor, at: Cursor, matched: number): string {
    const quote = this.#quotes.find((index) => index >= matched) ?? this.#stack.length;
    const depth = Math.min(quote, this.#emptyItem ?? quote);
    const kept = BLANK.test(line) ? line : this.#emit(line, keep, at, matched, undefined);
    this.#closedLate ||= this.#emptyItem !== undefined && this.#emptyItem < quote;
    this.#emptyItem = undefined;
    if (this.#fence === undefined || depth < this.#fence.depth) {
      this.#fence = undefined;
      this.#code &&= depth === this.#stack.length;
      this.#truncate(depth);
      this.#paragraph = false;
      this.#table = false;
    }
    return kept;
  }

  /**
   * The kept containers' prefix as written, then the marker or continuation
   * of the level past the limit, then the line's content. The content's
   * leading tabs become spaces: dropped markers move it to another column,
   * where a tab would be another width and could turn indented code back
   * into a quote. A cursor may stand inside a tab that a container took
   * only part of; each side keeps its part as spaces.
   */
  #emit(
    line: string,
    keep: Cursor,
    content: Cursor,
    matched: number,
    written: string | null | undefined,
    held = false,
  ): string {
    // Up to the first level past the limit, a line that writes no marker is as it was.
    if (written === null || (written === undefined && matched <= this.#keep + 1)) return line;
    const middle = written ?? (matched > this.#keep ? this.#head?.continuation : undefined) ?? "";
    const rest = detab(line, content);
    return (
      prefixTo(line, keep) + middle + (!held && holdsWidth(written, rest) ? rest : NBSP + rest)
    );
  }

  #push(container: Container): void {
    if (container.quote) this.#quotes.push(this.#stack.length);
    this.#stack.push(container);
  }

  #truncate(length: number): void {
    this.#stack.length = Math.min(this.#stack.length, length);
    while ((this.#quotes.at(-1) ?? -1) >= length) this.#quotes.pop();
    if (length <= this.#keep) this.#head = undefined;
  }
}

const NBSP = "\u00a0";

/**
 * Whether a line that writes `marker` before `rest` keeps the marker's
 * width. A list item's width is set by its first line: with nothing after
 * the marker, or five spaces or more, it is the marker and one space; with
 * fewer, every space counts. Were it narrower or wider than written, lines
 * the original left outside the item would fall into it, or lines it held
 * would read deeper; a no-break space (text a person does not see) holds it.
 */
function holdsWidth(marker: string | undefined, rest: string): boolean {
  if (marker === undefined || marker.startsWith(">")) return true;
  const spaces = marker.length - marker.trimEnd().length;
  if (BLANK.test(rest)) return spaces === 1;
  const indent = rest.length - rest.trimStart().length;
  return indent === 0 || (spaces === 1 && spaces + indent >= 5);
}

/** The line up to `to`, with the part of a tab it ends inside as spaces. */
function prefixTo(line: string, to: Cursor): string {
  let col = 0;
  for (let i = 0; i < to.pos; i++) col = line[i] === "\t" ? col + 4 - (col % 4) : col + 1;
  return line.slice(0, to.pos) + " ".repeat(to.col - col);
}

/**
 * The line from `from` on, its leading spaces and tabs (the rest of one it
 * starts inside included) written as the spaces they stand for there.
 */
function detab(line: string, from: Cursor): string {
  let { pos, col } = from;
  while (line[pos] === " " || line[pos] === "\t") {
    col += line[pos] === "\t" ? 4 - (col % 4) : 1;
    pos++;
  }
  return " ".repeat(col - from.col) + line.slice(pos);
}
