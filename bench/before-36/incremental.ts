/**
 * IncrementalMarkdown as it was before issue 36 (commit 7468101), kept for
 * `npm run bench -- stream-render` to measure the path it replaced in the
 * same run: a list last in the text was parsed again, all its items, on
 * every edit.
 */
import type { RootContent } from "mdast";
import {
  type LayoutContext,
  type MarkdownRendering,
  renderMarkdown,
  renderOrPlain,
  renderTopBlocks,
} from "../../src/platforms/markdown/layout.ts";
import { boundNesting } from "../../src/platforms/markdown/nesting.ts";
import { parseMarkdown } from "./parse.ts";

/**
 * Renders a streamed answer without parsing all of it again on every edit.
 * A streamed answer is rendered once per post and edit, each time a little
 * longer; parsing the whole text each time made a long answer's cost grow
 * with the square of its length. CommonMark closes a block for good once
 * the next one starts, so the blocks before the last one are rendered once
 * and kept, keyed by their source; an edit parses only the open tail.
 *
 * The output is exactly what {@link renderMarkdown} gives for the same text
 * (test/unit/markdown-incremental.test.ts holds that as a property). Where a
 * later line could still change an earlier block, the text is rendered
 * whole: link or footnote definitions (`]:`, which links anywhere read),
 * markdown nested past what the parser is shown ({@link boundNesting}
 * rewrites it across lines), and text the platform sets aside before
 * parsing (Slack's own `<@U1>` tokens).
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
  /** Settled source (whole blocks, ending after a blank line) -> its rendering, least recently used first. */
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
    // The whole text was checked; a tail is read afresh, so it is checked too.
    if (prefix !== "" && boundNesting(tail) !== tail) return renderMarkdown(text, rendering);
    const { tree, definitions } = parseMarkdown(tail);
    // The text sets nothing aside (see #incremental): the rendering's own context, with nothing in it.
    const context = rendering.begin?.(tail).context ?? ((base: LayoutContext) => base as C);
    const blocks = tree.children;
    const cut = settledEnd(tail, blocks);
    if (cut === undefined) {
      return join(before, renderTopBlocks(blocks, definitions, context, rendering)).trimEnd();
    }
    const closed = blocks.slice(0, -1);
    const settled = join(before, renderTopBlocks(closed, definitions, context, rendering));
    this.#forget(prefix);
    const last = closed.at(-1)?.type;
    this.#keep(prefix + tail.slice(0, cut), {
      rendered: settled,
      openEnded: last === "list" || last === "code",
    });
    const open = renderTopBlocks(blocks.slice(-1), definitions, context, rendering);
    return join(settled, open).trimEnd();
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
   * empty one. Settled prefixes end after a blank line, so only those
   * places are looked up, the nearest to the end first, a few of them. A
   * prefix kept for one answer may begin another that goes on differently:
   * one that ends in a list or code is taken only where what follows
   * closes it (see {@link closesAll}).
   */
  #lookup(text: string): [prefix: string, rendered: string] {
    let lineEnd = text.length;
    for (let tries = 0; tries < LOOKUPS && lineEnd > 0; ) {
      const lineStart = text.lastIndexOf("\n", lineEnd - 1) + 1;
      if (lineStart > 0 && isBlankLineBefore(text, lineStart)) {
        tries++;
        const prefix = text.slice(0, lineStart);
        const settled = this.#settled.get(prefix);
        if (settled !== undefined && (!settled.openEnded || closesAll(text, lineStart))) {
          // Most recently used last.
          this.#settled.delete(prefix);
          this.#settled.set(prefix, settled);
          return [prefix, settled.rendered];
        }
      }
      lineEnd = lineStart - 1;
    }
    return ["", ""];
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
}

/** Blank-line places tried per render before the text is parsed whole. */
const LOOKUPS = 8;

/**
 * Where the finished blocks of `tail` end: at the start of the line where
 * its last block begins, when a blank line comes right before it. A block
 * that starts straight after the previous one waits for the next blank line.
 */
function settledEnd(tail: string, blocks: readonly RootContent[]): number | undefined {
  if (blocks.length < 2) return undefined;
  const start = blocks.at(-1)?.position?.start.offset;
  if (start === undefined) return undefined;
  const lineStart = tail.lastIndexOf("\n", start - 1) + 1;
  return lineStart > 0 && isBlankLineBefore(tail, lineStart) ? lineStart : undefined;
}

/** Whether the line ending just before `lineStart` (which follows a newline) is blank. */
function isBlankLineBefore(text: string, lineStart: number): boolean {
  const previous = text.lastIndexOf("\n", lineStart - 2) + 1;
  return lineStart - 1 >= previous && BLANK.test(text.slice(previous, lineStart - 1));
}

const BLANK = /^[ \t\r]*$/;

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

/** Two renderings of top-level blocks, as one rendering joins them (an empty one shows nothing). */
function join(first: string, second: string): string {
  if (first === "") return second;
  if (second === "") return first;
  return `${first}\n\n${second}`;
}
