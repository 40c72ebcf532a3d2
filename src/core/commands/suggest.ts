/**
 * "Did you mean" for tool ids, toolset names and verbs. Hand-written because it
 * is twenty lines over a few hundred short names; a dependency would not pay
 * for itself.
 */

/** Levenshtein distance: insertions, deletions and substitutions of one UTF-16 unit each. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(
        Math.min(substitution, (previous[j] as number) + 1, (current[j - 1] as number) + 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * Up to `limit` candidates close to `word`, closest first, ties by name.
 * Case is ignored (`Web_Search` finds `web_search`), and a candidate that
 * contains the word or is contained in it counts as close (`jira` finds
 * `jira_search`).
 */
export function closest(word: string, candidates: Iterable<string>, limit = 3): string[] {
  const wanted = word.toLowerCase();
  const threshold = Math.max(2, Math.floor(wanted.length / 3));
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(candidates)) {
    const lower = name.toLowerCase();
    let score = editDistance(wanted, lower);
    const shorter = Math.min(wanted.length, lower.length);
    if (shorter >= 3 && (lower.includes(wanted) || wanted.includes(lower))) {
      score = Math.min(score, 1);
    }
    if (score <= threshold) scored.push({ name, score });
  }
  scored.sort((x, y) => x.score - y.score || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return scored.slice(0, limit).map((s) => s.name);
}

/** `a`, `a or b`, `a, b or c`. */
export function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}
