import { compareIds } from "../tools/registry.ts";

/**
 * BM25 over a tool's name and description: good enough to find "github" or
 * "calendar" among a thousand deferred tools, small enough to read, and
 * deterministic (ties broken by name) so the same query gives the same list.
 */
export interface SearchDoc {
  readonly id: string;
  readonly text: string;
}

export interface SearchHit {
  readonly id: string;
  readonly score: number;
}

const K1 = 1.2;
const B = 0.75;
/** The name says more than any word of the description. */
const NAME_WEIGHT = 3;

export function tokenize(text: string): string[] {
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return words.map(stem);
}

/** A light stemmer: plurals and -ing, so "issues" finds "create_issue" and "listing" finds "list". */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith("ing")) return word.slice(0, -3);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

export function rankTools(docs: readonly SearchDoc[], query: string, limit = 10): SearchHit[] {
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0 || docs.length === 0) return [];
  const bags = docs.map((doc) => {
    const tokens = [...Array(NAME_WEIGHT).fill(tokenize(doc.id)).flat(), ...tokenize(doc.text)];
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    return { id: doc.id, length: tokens.length, counts };
  });
  const averageLength = bags.reduce((sum, bag) => sum + bag.length, 0) / bags.length;
  const idf = new Map<string, number>();
  for (const term of terms) {
    const containing = bags.filter((bag) => bag.counts.has(term)).length;
    idf.set(term, Math.log(1 + (bags.length - containing + 0.5) / (containing + 0.5)));
  }
  const hits: SearchHit[] = [];
  for (const bag of bags) {
    let score = 0;
    for (const term of terms) {
      const tf = bag.counts.get(term);
      if (!tf) continue;
      const norm = tf + K1 * (1 - B + (B * bag.length) / averageLength);
      score += ((idf.get(term) ?? 0) * tf * (K1 + 1)) / norm;
    }
    if (score > 0) hits.push({ id: bag.id, score });
  }
  hits.sort((a, b) => b.score - a.score || compareIds(a.id, b.id));
  return hits.slice(0, limit);
}
