import type { List, RootContent } from "mdast";

/*
 * How IncrementalMarkdown (incremental.ts) keeps a tight list item by item:
 * where it cuts one, and how a tail read after the cut goes on with it.
 */

/** A tight list cut before an item: the items after the cut belong to it only if written alike. */
export interface OpenList {
  /** The marker its items are written with: `-`, `+`, `*`, or an ordered list's `.` or `)`. */
  readonly marker: string;
  /** An ordered list's number for the next item (a whole render numbers on from the first). */
  readonly next: number | undefined;
}

/** A tight list cut before its last item: where, the blocks before with its items so far, and the rest. */
export interface ListCut {
  readonly end: number;
  readonly closed: readonly RootContent[];
  readonly open: readonly RootContent[];
  readonly list: OpenList;
}

/**
 * A tight list's items before its last, when the last begins a line: a
 * later item, written with the same marker at the start of a line, can
 * only add to the list. A blank line between items would make the list
 * loose and change how every item shows, so a loose list is not cut, and
 * a continuation that makes it loose is rendered whole (see
 * {@link continuedList}).
 */
export function listCut(
  tail: string,
  before: readonly RootContent[],
  list: List,
): ListCut | undefined {
  const items = list.children;
  const end = items.at(-1)?.position?.start.offset;
  if (list.spread || items.length < 2 || end === undefined || tail[end - 1] !== "\n") {
    return undefined;
  }
  const marker = itemMarker(tail, end);
  if (marker === undefined || list.ordered !== ORDERED_MARKERS.includes(marker)) return undefined;
  const next = list.ordered ? (list.start ?? 1) + items.length - 1 : undefined;
  return {
    end,
    closed: [...before, { ...list, children: items.slice(0, -1) }],
    open: [{ ...list, children: items.slice(-1), start: next ?? list.start }],
    list: { marker, next },
  };
}

/**
 * The first block of a tail read after a prefix cut inside a list, as the
 * rest of that list (numbered on from it), or undefined when it is not
 * one: then the text is rendered whole.
 */
export function continuedList(first: RootContent | undefined, list: OpenList): List | undefined {
  if (first?.type !== "list" || first.position?.start.offset !== 0 || first.spread)
    return undefined;
  if (first.ordered !== (list.next !== undefined)) return undefined;
  return list.next === undefined ? first : { ...first, start: list.next };
}

/** The marker of the list item whose first line starts at `at` (an ordered one's delimiter), if one does. */
export function itemMarker(text: string, at: number): string | undefined {
  ITEM_START.lastIndex = at;
  const match = ITEM_START.exec(text);
  return match?.[1] ?? match?.[2];
}

/** A list item's first line, unindented: a bullet, or a number and its delimiter, then a space or the line's end. */
const ITEM_START = /(?:([-+*])|\d{1,9}([.)]))(?:[ \t]|\r?\n|$)/y;
const ORDERED_MARKERS = [".", ")"];
