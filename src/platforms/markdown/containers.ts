/**
 * CommonMark's container markers (block quotes, list items) and the fences
 * and breaks that end them, read off one line at a time for
 * {@link boundNesting}'s scanner (markdown-nesting.ts).
 */

export interface Container {
  readonly quote: boolean;
  /** For a list item: the columns a line must be indented by to continue it. */
  readonly width: number;
}

export interface Fence {
  /** How many containers hold the code block. */
  readonly depth: number;
  readonly char: string;
  readonly length: number;
}

/**
 * A position in a line: the index, and the column with tabs expanded to
 * stops of 4. A container may take only part of a tab (CommonMark): then the
 * index stays on the tab and the column is inside it, and whoever reads on
 * counts the tab as the columns left to its stop.
 */
export interface Cursor {
  readonly pos: number;
  readonly col: number;
}

/** The indexes a thematic break can start at: none when `from` > `to`. */
export interface Breaks {
  readonly from: number;
  readonly to: number;
}

export interface Opened {
  readonly container: Container;
  /**
   * The marker as written when it heads the levels past the limit: a list
   * item's with its indentation and spacing as spaces, so it keeps its width.
   */
  readonly marker: string;
  readonly end: Cursor;
  /** A list item with nothing after its marker on this line. */
  readonly empty?: boolean;
}

/** A line that is only spaces and tabs. */
export const BLANK = /^[ \t]*$/;
const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;
const HEADING = /^#{1,6}(?:[ \t]|$)/;

/** The quotes and list items a line opens after `at`, in order. */
export function openContainers(
  line: string,
  from: Cursor,
  interruptsParagraph: boolean,
  breaks: Breaks,
): Opened[] {
  const opened: Opened[] = [];
  let at = from;
  for (;;) {
    const quote = quoteMarker(line, at);
    if (quote !== undefined) {
      opened.push({ container: { quote: true, width: 0 }, marker: ">", end: quote });
      at = quote;
      continue;
    }
    const start = skipIndent(line, at);
    if (start === undefined || isBreak(start, breaks)) return opened;
    // micromark holds every list the line opens to the paragraph's rule, not only the first.
    const item = listItem(line, at, start, interruptsParagraph);
    if (item === undefined) return opened;
    opened.push(item);
    at = item.end;
  }
}

/** Skips up to three columns of indentation; undefined at four or more (indented code). */
export function skipIndent(line: string, from: Cursor): Cursor | undefined {
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
export function quoteMarker(line: string, from: Cursor): Cursor | undefined {
  const start = skipIndent(line, from);
  if (start === undefined || line[start.pos] !== ">") return undefined;
  const next = line[start.pos + 1];
  if (next === " ") return { pos: start.pos + 2, col: start.col + 2 };
  // A tab after `>` gives its first column as the marker's space; the rest is content.
  if (next === "\t") return intoTab(start.pos + 1, start.col + 1);
  return { pos: start.pos + 1, col: start.col + 1 };
}

/** One column into the tab at `pos` (which starts at `col`): still on it, unless that was its last column. */
function intoTab(pos: number, col: number): Cursor {
  return col % 4 === 3 ? { pos: pos + 1, col: col + 1 } : { pos, col: col + 1 };
}

/** Past `width` columns of indentation (inside a tab wider than what is left), or undefined when the line has fewer. */
export function indented(line: string, from: Cursor, width: number): Cursor | undefined {
  let { pos, col } = from;
  const goal = from.col + width;
  while (col < goal && pos < line.length) {
    const char = line[pos];
    if (char === " ") col++;
    else if (char === "\t") {
      const stop = col + 4 - (col % 4);
      if (stop > goal) return { pos, col: goal };
      col = stop;
    } else break;
    pos++;
  }
  return col >= goal ? { pos, col } : undefined;
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
  const text = (width: number) =>
    " ".repeat(start.col - from.col) + marker[0] + " ".repeat(width - (markerCol - from.col));
  if (empty || col - markerCol >= 5) {
    // Content after five or more spaces is indented code: the item's own content starts one column in
    // (inside the tab, when a tab follows the marker).
    const end = empty
      ? { pos, col }
      : line[after] === "\t"
        ? intoTab(after, markerCol)
        : { pos: after + 1, col: markerCol + 1 };
    const width = markerCol + 1 - from.col;
    return { container: { quote: false, width }, marker: text(width), end, empty };
  }
  const width = col - from.col;
  return { container: { quote: false, width }, marker: text(width), end: { pos, col } };
}

export function openFence(line: string, from: Cursor): Omit<Fence, "depth"> | undefined {
  const start = skipIndent(line, from);
  if (start === undefined) return undefined;
  const match = FENCE_OPEN.exec(line.slice(start.pos));
  if (match === null) return undefined;
  const run = match[1] as string;
  // A backtick fence's info string has no backticks (else it is a code span).
  if (run[0] === "`" && (match[2] ?? "").includes("`")) return undefined;
  return { char: run[0] as string, length: run.length };
}

export function closesFence(line: string, from: Cursor, fence: Fence): boolean {
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
export function startsNonParagraph(line: string, from: Cursor, breaks: Breaks): boolean {
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
export function thematicBreaks(line: string): Breaks {
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
