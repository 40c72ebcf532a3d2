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

interface Container {
  readonly quote: boolean;
  /** For a list item: the columns a line must be indented by to continue it. */
  readonly width: number;
}

/** The first container past the limit, whose marker was written. */
interface Head {
  readonly index: number;
  /** What a line continuing it starts with after the kept prefix. */
  readonly continuation: string;
}

interface Fence {
  /** How many containers hold the code block. */
  readonly depth: number;
  readonly char: string;
  readonly length: number;
}

/** A position in a line: the index, and the column with tabs expanded to stops of 4. */
interface Cursor {
  readonly pos: number;
  readonly col: number;
}

/** The indexes a thematic break can start at: none when `from` > `to`. */
interface Breaks {
  readonly from: number;
  readonly to: number;
}

interface Opened {
  readonly container: Container;
  /** The marker as the line shows it when it heads the levels past the limit. */
  readonly marker: string;
  readonly end: Cursor;
}

const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;
const HEADING = /^#{1,6}(?:[ \t]|$)/;
const BLANK = /^[ \t]*$/;

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

/** The quotes and list items a line opens after `at`, in order. */
function openContainers(
  line: string,
  from: Cursor,
  interruptsParagraph: boolean,
  breaks: Breaks,
): Opened[] {
  const opened: Opened[] = [];
  let at = from;
  let interrupting = interruptsParagraph;
  for (;;) {
    const quote = quoteMarker(line, at);
    if (quote !== undefined) {
      opened.push({ container: { quote: true, width: 0 }, marker: ">", end: quote });
      at = quote;
      interrupting = false;
      continue;
    }
    const start = skipIndent(line, at);
    if (start === undefined || isBreak(start, breaks)) return opened;
    const item = listItem(line, at, start, interrupting);
    if (item === undefined) return opened;
    opened.push(item);
    at = item.end;
    interrupting = false;
  }
}

/** Skips up to three columns of indentation; undefined at four or more (indented code). */
function skipIndent(line: string, from: Cursor): Cursor | undefined {
  let { pos, col } = from;
  while (pos < line.length) {
    const char = line[pos];
    if (char === " ") col++;
    else if (char === "\t") col += 4 - (col % 4);
    else break;
    pos++;
    if (col - from.col > 3) return undefined;
  }
  return { pos, col };
}

/** Past a `>` and the one space after it, or undefined when the line has none here. */
function quoteMarker(line: string, from: Cursor): Cursor | undefined {
  const start = skipIndent(line, from);
  if (start === undefined || line[start.pos] !== ">") return undefined;
  const next = line[start.pos + 1];
  if (next === " ") return { pos: start.pos + 2, col: start.col + 2 };
  if (next === "\t")
    return { pos: start.pos + 2, col: start.col + 1 + (4 - ((start.col + 1) % 4)) };
  return { pos: start.pos + 1, col: start.col + 1 };
}

/** Past `width` columns of indentation (a tab may overshoot), or undefined when the line has fewer. */
function indented(line: string, from: Cursor, width: number): Cursor | undefined {
  let { pos, col } = from;
  while (col - from.col < width && pos < line.length) {
    const char = line[pos];
    if (char === " ") col++;
    else if (char === "\t") col += 4 - (col % 4);
    else break;
    pos++;
  }
  return col - from.col >= width ? { pos, col } : undefined;
}

/**
 * A list item starting at `start`: its marker, where its content starts,
 * and the indentation that continues it. A list interrupting a paragraph
 * must start at 1 and must not be empty (CommonMark).
 */
function listItem(
  line: string,
  from: Cursor,
  start: Cursor,
  interrupting: boolean,
): Opened | undefined {
  const marker = /^(?:[-*+]|(\d{1,9})[.)])/.exec(line.slice(start.pos, start.pos + 11));
  if (marker === null) return undefined;
  const after = start.pos + marker[0].length;
  const markerCol = start.col + marker[0].length;
  if (after < line.length && line[after] !== " " && line[after] !== "\t") return undefined;
  let pos = after;
  let col = markerCol;
  while (pos < line.length && (line[pos] === " " || line[pos] === "\t")) {
    col += line[pos] === "\t" ? 4 - (col % 4) : 1;
    pos++;
  }
  const empty = pos === line.length;
  if (interrupting && (empty || (marker[1] !== undefined && Number(marker[1]) !== 1))) {
    return undefined;
  }
  const text = marker[0];
  if (empty || col - markerCol >= 5) {
    // Content after five or more spaces is indented code: the item's own content starts one column in.
    const end = empty ? { pos, col } : { pos: after + 1, col: markerCol + 1 };
    return { container: { quote: false, width: markerCol + 1 - from.col }, marker: text, end };
  }
  return { container: { quote: false, width: col - from.col }, marker: text, end: { pos, col } };
}

function openFence(line: string, from: Cursor): Omit<Fence, "depth"> | undefined {
  const start = skipIndent(line, from);
  if (start === undefined) return undefined;
  const match = FENCE_OPEN.exec(line.slice(start.pos));
  if (match === null) return undefined;
  const run = match[1] as string;
  // A backtick fence's info string has no backticks (else it is a code span).
  if (run[0] === "`" && (match[2] ?? "").includes("`")) return undefined;
  return { char: run[0] as string, length: run.length };
}

function closesFence(line: string, from: Cursor, fence: Fence): boolean {
  const start = skipIndent(line, from);
  if (start === undefined) return false;
  const rest = line.slice(start.pos);
  let run = 0;
  while (rest[run] === fence.char) run++;
  return run >= fence.length && BLANK.test(rest.slice(run));
}

function isBreak(at: Cursor, breaks: Breaks): boolean {
  return breaks.from <= at.pos && at.pos <= breaks.to;
}

/** Whether what follows `at` is a heading, a rule or a fence: something a lazy line cannot be. */
function startsNonParagraph(line: string, from: Cursor, breaks: Breaks): boolean {
  const start = skipIndent(line, from);
  if (start === undefined) return false;
  return (
    isBreak(start, breaks) ||
    HEADING.test(line.slice(start.pos, start.pos + 8)) ||
    openFence(line, from) !== undefined
  );
}

/**
 * Where a thematic break (`---`, `* * *`, `___`) may start in the line: from
 * `from` to `to`, the rest of the line is one of those characters, three or
 * more times, and whitespace. Found from the end, so a long line costs one
 * pass however many markers it has.
 */
function thematicBreaks(line: string): Breaks {
  let kind: string | undefined;
  let count = 0;
  let from = line.length;
  let to = -1;
  for (let i = line.length - 1; i >= 0; i--) {
    const char = line[i] as string;
    if (char === " " || char === "\t") continue;
    if (kind === undefined && (char === "-" || char === "*" || char === "_")) kind = char;
    if (char !== kind) break;
    count++;
    if (count === 3) to = i;
    if (count >= 3) from = i;
  }
  return { from, to };
}
