import type { Document, LineCounter, Pair, YAMLMap } from "yaml";
import { yaml } from "../yaml.ts";
import type { KeyPath } from "./errors.ts";

/**
 * Finds the lines of key paths in one parsed document. A file with thousands
 * of problems asks for thousands of lines, so each map is indexed by key name
 * once, on first use, and every lookup after that costs the path's depth
 * rather than a scan of the map.
 */
export class LineIndex {
  readonly #pairs = new WeakMap<YAMLMap, ReadonlyMap<string, Pair>>();

  constructor(
    private readonly doc: Document,
    private readonly counter: LineCounter,
  ) {}

  /**
   * The 1-based line of the key or list item at `path`, or of the deepest part
   * of the path the document has. A key's own line is the anchor a person looks
   * for, even when its value spans several lines.
   */
  lineOf(path: KeyPath): number | undefined {
    const { isAlias, isMap, isSeq } = yaml();
    let node: unknown = this.doc.contents;
    let line = this.#lineAt(node);
    for (const segment of path) {
      // An alias stands for its anchor's value; keep pointing at the alias line.
      if (isAlias(node)) node = node.resolve(this.doc);
      if (isMap(node)) {
        const pair = this.#pairsOf(node).get(String(segment));
        if (pair === undefined) break;
        line = this.#lineAt(pair.key) ?? this.#lineAt(pair.value) ?? line;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === "number") {
        node = node.items[segment];
        line = this.#lineAt(node) ?? line;
      } else {
        break;
      }
    }
    return line;
  }

  #pairsOf(map: YAMLMap): ReadonlyMap<string, Pair> {
    let pairs = this.#pairs.get(map);
    if (pairs === undefined) {
      const index = new Map<string, Pair>();
      for (const item of map.items) {
        const name = keyName(item.key);
        // The first pair of a name wins, as a scan from the top would find it.
        if (name !== undefined && !index.has(name)) index.set(name, item);
      }
      pairs = index;
      this.#pairs.set(map, pairs);
    }
    return pairs;
  }

  #lineAt(node: unknown): number | undefined {
    if (!yaml().isNode(node) || node.range === undefined || node.range === null) return undefined;
    return this.counter.linePos(node.range[0]).line;
  }
}

/** How `toJS` names a scalar key (`~` becomes the empty string). */
function keyName(key: unknown): string | undefined {
  if (!yaml().isScalar(key)) return undefined;
  return key.value === null || key.value === undefined ? "" : String(key.value);
}

/** One lookup; a caller asking for many lines of the same document keeps a {@link LineIndex}. */
export function lineOf(doc: Document, counter: LineCounter, path: KeyPath): number | undefined {
  return new LineIndex(doc, counter).lineOf(path);
}
