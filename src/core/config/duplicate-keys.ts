import type { Document } from "yaml";
import { yaml } from "../yaml.ts";

/**
 * The offset of the first key that repeats an earlier key of the same map,
 * in document order, or undefined when every map's keys are unique.
 *
 * yaml checks this itself by comparing each new key with every earlier key of
 * its map, which is quadratic: a 60,000-key map took most of a minute. The
 * loader turns that check off and runs this one, one Set per map, with the
 * same notion of equal (two scalar keys with the same value).
 */
export function firstDuplicateKey(doc: Document): number | undefined {
  let first: number | undefined;
  const { isMap, isScalar, visit } = yaml();
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return undefined;
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const value = pair.key.value;
        // yaml compares with ===, under which NaN never equals itself.
        if (Number.isNaN(value)) continue;
        if (seen.has(value)) {
          const offset = pair.key.range?.[0];
          if (offset !== undefined && (first === undefined || offset < first)) first = offset;
          break;
        }
        seen.add(value);
      }
      return undefined;
    },
  });
  return first;
}
