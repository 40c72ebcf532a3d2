import { type Document, isAlias, isMap, isNode, isScalar, isSeq, type LineCounter } from "yaml";
import type { KeyPath } from "./errors.ts";

/**
 * The 1-based line of the key or list item at `path`, or of the deepest part
 * of the path the document has. A key's own line is the anchor a person looks
 * for, even when its value spans several lines.
 */
export function lineOf(doc: Document, counter: LineCounter, path: KeyPath): number | undefined {
  let node: unknown = doc.contents;
  let line = lineAt(node, counter);
  for (const segment of path) {
    // An alias stands for its anchor's value; keep pointing at the alias line.
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((item) => keyName(item.key) === String(segment));
      if (pair === undefined) break;
      line = lineAt(pair.key, counter) ?? lineAt(pair.value, counter) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number") {
      node = node.items[segment];
      line = lineAt(node, counter) ?? line;
    } else {
      break;
    }
  }
  return line;
}

/** How `toJS` names a scalar key (`~` becomes the empty string). */
function keyName(key: unknown): string | undefined {
  if (!isScalar(key)) return undefined;
  return key.value === null || key.value === undefined ? "" : String(key.value);
}

function lineAt(node: unknown, counter: LineCounter): number | undefined {
  if (!isNode(node) || node.range === undefined || node.range === null) return undefined;
  return counter.linePos(node.range[0]).line;
}
