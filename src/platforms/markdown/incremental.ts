import type { RootContent } from "mdast";
import {
  type LayoutContext,
  type MarkdownRendering,
  renderMarkdown,
  renderOrPlain,
  renderTopBlocks,
} from "./layout.ts";
import { continuedList, itemMarker, listCut, type OpenList } from "./list-cut.ts";
import { boundNesting } from "./nesting.ts";
import { parseBoundedMarkdown } from "./parse.ts";

/**
 * Renders a streamed answer without parsing all of it again on every edit.
 * A streamed answer is rendered once per post and edit, each time a little
 * longer; parsing the whole text each time made a long answer's cost grow
 * with the square of its length. CommonMark closes a block for good once
 * the next one starts, so the blocks before the last one are rendered once
 * and kept, keyed by their source; an edit parses only the open tail. A
 * tight list last is kept item by item the same way, since a list is
 * often most of an answer: its items before the last are kept, and the
 * tail starts at the last item.
 *
 * The output is exactly what {@link renderMarkdown} gives for the same text
 * (test/unit/markdown-incremental.test.ts holds that as a property). Where a
 * later line could still change an earlier block, the text is rendered
 * whole: link or footnote definitions (`]:`, which links anywhere read),
 * markdown nested past what the parser is shown ({@link boundNesting}
 * rewrites it across lines), text the platform sets aside before
 * parsing (Slack's own `<@U1>` tokens), and a kept list that goes on
 * loose (a blank line between items changes how every item shows) or
 * with another marker (which starts another list).
 *
 * The kept renderings are shared by every answer (two answers with the same
 * beginning share it) and bounded by their total length, the least recently
 * used dropped first.
 *
 * @example
 * const stream = new IncrementalMarkdown(TELEGRAM_HTML);
 * stream.render("# Plan\n\nFirst"); // parses it all, keeps "# Plan\n\n"
 * stream.render("# Plan\n\nFirst, the tests."); // parses "First, the tests." only
 */
export class IncrementalMarkdown<C extends LayoutContext> {
  /** Settled source (whole blocks, ending after a blank line or before a list item) -> its rendering, least recently used first. */
  readonly #settled = new Map<string, Settled>();
  #size = 0;

  constructor(
    private readonly rendering: MarkdownRendering<C>,
    /** How many characters of source and rendering are kept, all entries together. */
    private readonly budget = 2_000_000,
  ) {}

  /** The text in the platform's markup: the same as {@link renderMarkdown}. */
  render(markdown: string): string {
    return renderOrPlain(markdown, (text) => this.#render(text), this.rendering.escape);
  }

  #render(text: string): string {
    const { rendering } = this;
    if (!this.#incremental(text)) return renderMarkdown(text, rendering);
    const [prefix, before] = this.#lookup(text);
    const tail = text.slice(prefix.length);
    // The whole text was checked; a tail is read afresh, so it is checked too, once.
    if (prefix !== "" && boundNesting(tail) !== tail) return renderMarkdown(text, rendering);
    const { tree, definitions } = parseBoundedMarkdown(tail);
    const blocks = tree.children;
    if (before.list !== undefined) {
      const first = continuedList(blocks[0], before.list);
      if (first === undefined) return renderMarkdown(text, rendering);
      blocks[0] = first;
    }
    // The text sets nothing aside (see #incremental): the rendering's own context, with nothing in it.
    const context = rendering.begin?.(tail).context ?? ((base: LayoutContext) => base as C);
    const render = (nodes: readonly RootContent[]) =>
      renderTopBlocks(nodes, definitions, context, rendering);
    const cut = settledCut(tail, blocks);
    if (cut === undefined) return after(before, render(blocks)).trimEnd();
    const settled: Settled = { ...cut.settled, rendered: after(before, render(cut.closed)) };
    this.#forget(prefix);
    this.#keep(prefix + tail.slice(0, cut.end), settled);
    return after(settled, render(cut.open)).trimEnd();
  }

  /** Whether the text can be rendered in parts (see the class comment for why not). */
  #incremental(text: string): boolean {
    const { rendering } = this;
    if (text.includes("]:") || text.search(rendering.sentinels) !== -1) return false;
    if (rendering.begin && rendering.begin(text).source !== text) return false;
    return boundNesting(text) === text;
  }

  /**
   * The longest settled prefix of `text` kept, with its rendering, or the
   * empty one. Settled prefixes end after a blank line or where a list item
   * begins, so only those places are looked up, the nearest to the end
   * first, a few of them. A prefix kept for one answer may begin another
   * that goes on differently: one that ends in a list or code is taken only
   * where what follows closes it (see {@link closesAll}), one that ends
   * inside a list only where another item of it follows.
   */
  #lookup(text: string): [prefix: string, settled: Settled] {
    let lineEnd = text.length;
    for (let tries = 0; tries < LOOKUPS && lineEnd > 0; ) {
      const lineStart = text.lastIndexOf("\n", lineEnd - 1) + 1;
      const afterBlank = lineStart > 0 && isBlankLineBefore(text, lineStart);
      if (lineStart > 0 && (afterBlank || itemMarker(text, lineStart) !== undefined)) {
        tries++;
        const prefix = text.slice(0, lineStart);
        const settled = this.#settled.get(prefix);
        if (settled !== undefined && goesOn(settled, text, lineStart)) {
          // Most recently used last.
          this.#settled.delete(prefix);
          this.#settled.set(prefix, settled);
          return [prefix, settled];
        }
      }
      lineEnd = lineStart - 1;
    }
    return ["", NOTHING];
  }

  #keep(prefix: string, settled: Settled): void {
    if (this.#settled.has(prefix)) return;
    this.#settled.set(prefix, settled);
    this.#size += prefix.length + settled.rendered.length;
    for (const [oldest, value] of this.#settled) {
      if (this.#size <= this.budget) break;
      this.#settled.delete(oldest);
      this.#size -= oldest.length + value.rendered.length;
    }
  }

  /** Drops a prefix the answer has grown past: its stream looks up the longer one from now on. */
  #forget(prefix: string): void {
    const settled = this.#settled.get(prefix);
    if (settled === undefined) return;
    this.#settled.delete(prefix);
    this.#size -= prefix.length + settled.rendered.length;
  }
}

/** Finished blocks kept: their rendering, and whether the last could go on past a blank line. */
interface Settled {
  readonly rendered: string;
  /** The last block is a list or code: an indented line (or a list item) after the blank would continue it. */
  readonly openEnded: boolean;
  /** Set when the prefix ends inside a tight list, before one of its items: how the next item goes on. */
  readonly list?: OpenList;
}

const NOTHING: Settled = { rendered: "", openEnded: false };

/** Blank-line places tried per render before the text is parsed whole. */
const LOOKUPS = 8;

/** Where a tail's finished part ends, what it holds, what is still open, and how it goes on. */
interface Cut {
  readonly end: number;
  readonly closed: readonly RootContent[];
  readonly open: readonly RootContent[];
  readonly settled: Omit<Settled, "rendered">;
}

/**
 * Where the finished blocks of `tail` end. A tight list last is cut before
 * its last item: a long list is streamed item by item, and reading all its
 * items again on every edit would cost as much as the whole answer. Else
 * at the start of the line where the last block begins, when a blank line
 * comes right before it; a block that starts straight after the previous
 * one waits for the next blank line.
 */
function settledCut(tail: string, blocks: readonly RootContent[]): Cut | undefined {
  const last = blocks.at(-1);
  if (last?.type === "list") {
    const cut = listCut(tail, blocks.slice(0, -1), last);
    if (cut !== undefined) return { ...cut, settled: { openEnded: false, list: cut.list } };
  }
  if (blocks.length < 2) return undefined;
  const start = last?.position?.start.offset;
  if (start === undefined) return undefined;
  const lineStart = tail.lastIndexOf("\n", start - 1) + 1;
  if (lineStart === 0 || !isBlankLineBefore(tail, lineStart)) return undefined;
  const before = blocks.at(-2);
  // A fence or HTML block left open in a list's last item takes the blank lines after it
  // only when more of the item (or another list) follows: what the list shows is not
  // settled until then.
  const source = tail.slice(before?.position?.start.offset, lineStart);
  if (before?.type === "list" && (FENCE.test(source) || endsInHtml(before))) return undefined;
  // micromark reads the block after indented code as it would not alone (`- ` is no list
  // item there): the block after one is parsed with it.
  if (before?.type === "code" && !FENCED.test(source)) return undefined;
  const type = before?.type;
  return {
    end: lineStart,
    closed: blocks.slice(0, -1),
    open: blocks.slice(-1),
    settled: { openEnded: type === "list" || type === "code" },
  };
}

/** Whether the last block inside a container (however deep) is HTML, which may be left open. */
function endsInHtml(node: RootContent): boolean {
  let last: RootContent | undefined = node;
  while (last?.type === "list" || last?.type === "listItem" || last?.type === "blockquote") {
    last = last.children.at(-1);
  }
  return last?.type === "html";
}

/** Whether `text`, from `lineStart` on, may follow a settled prefix (see {@link Settled}). */
function goesOn(settled: Settled, text: string, lineStart: number): boolean {
  if (settled.list !== undefined) {
    return itemMarker(text, lineStart) === settled.list.marker;
  }
  return !settled.openEnded || closesAll(text, lineStart);
}

/** Whether the line ending just before `lineStart` (which follows a newline) is blank. */
function isBlankLineBefore(text: string, lineStart: number): boolean {
  const previous = text.lastIndexOf("\n", lineStart - 2) + 1;
  return lineStart - 1 >= previous && BLANK.test(text.slice(previous, lineStart - 1));
}

const BLANK = /^[ \t\r]*$/;
/** What opens a fenced code block, anywhere; and at the start of a code block's source. */
const FENCE = /```|~~~/;
const FENCED = /^ {0,3}(?:```|~~~)/;

/**
 * Whether the first line with text from `lineStart` on (after a blank line)
 * closes the list or code before it. After a blank line only these two go
 * on: a list (an indented line continues its item, a marker adds an item
 * and makes the list loose) and indented code (an indented line). So the
 * line must not be indented nor start like a list item; no text at all
 * closes nothing but changes nothing either.
 */
function closesAll(text: string, lineStart: number): boolean {
  FIRST_TEXT.lastIndex = lineStart;
  const line = FIRST_TEXT.exec(text)?.[1] ?? "";
  return BLANK.test(line) || !MAY_CONTINUE.test(line);
}

/** The first line that is not blank, from `lastIndex` on (blank when there is none). */
const FIRST_TEXT = /(?:[ \t\r]*\n)*([^\n]*)/y;
/** Indented, or a list item's marker: `-`, `+`, `*`, `1.`, `1)`. */
const MAY_CONTINUE = /^(?:[ \t]|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$))/;

/**
 * A settled prefix's rendering followed by its tail's, as one rendering
 * joins them: top-level blocks by a blank line (an empty one shows
 * nothing), the items of a tight list by a line break.
 */
function after(settled: Settled, rendered: string): string {
  const first = settled.rendered;
  if (first === "") return rendered;
  if (rendered === "") return first;
  return `${first}${settled.list ? "\n" : "\n\n"}${rendered}`;
}
