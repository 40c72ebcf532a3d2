import { closest } from "./suggest.ts";

/**
 * What the `/tools` and `/skills` parsers share: a verb list, the usage line
 * of each verb, and how a mistake becomes that command's own typed error. The
 * helpers below word the common mistakes the same way in both.
 */
export interface CommandGrammar<V extends string, E extends Error> {
  /** `/tools`, `/skills`. */
  readonly command: string;
  /** What the command switches, for hints: "tool", "skill". */
  readonly noun: string;
  readonly verbs: readonly V[];
  /** Words people use for a verb (`enable` for `on`). */
  readonly synonyms: Readonly<Record<string, V>>;
  readonly usage: Readonly<Record<V | "help", string>>;
  /** Said after the list of commands when the verb is unknown. */
  readonly unknownTail?: string;
  readonly error: (token: string | null, verb: V | null, usage: string, problem: string) => E;
}

/** Refuses arguments past the `allowed` ones, naming the first extra one. */
export function noMore<V extends string, E extends Error>(
  grammar: CommandGrammar<V, E>,
  args: readonly string[],
  allowed: number,
  verb: V,
): void {
  const extra = args[allowed];
  if (extra === undefined) return;
  throw grammar.error(extra, verb, grammar.usage[verb], `Unexpected "${extra}"`);
}

export function missing<V extends string, E extends Error>(
  grammar: CommandGrammar<V, E>,
  verb: V,
  what: string,
): E {
  return grammar.error(null, verb, grammar.usage[verb], `Missing ${what}`);
}

/**
 * An unknown first word: the word order when the person wrote the item
 * before `on`/`off`, else the nearest verb (a synonym first), and the list.
 */
export function unknownVerb<V extends string, E extends Error>(
  grammar: CommandGrammar<V, E>,
  token: string,
  args: readonly string[],
): E {
  const lower = token.toLowerCase();
  const second = args[0]?.toLowerCase();
  let hint: string;
  if (second === "on" || second === "off") {
    // `/tools web_search off`: the person knows what they want, just not the word order.
    hint = ` To switch a ${grammar.noun}, put ${second} first: ${grammar.command} ${second} ${token}.`;
  } else {
    const synonym = Object.hasOwn(grammar.synonyms, lower) ? grammar.synonyms[lower] : undefined;
    const near = synonym ?? closest(lower, grammar.verbs, 1)[0];
    hint = near === undefined ? "" : ` Did you mean "${near}"?`;
  }
  const tail = grammar.unknownTail ? ` ${grammar.unknownTail}` : "";
  return grammar.error(
    token,
    null,
    grammar.usage.help,
    `Unknown command "${token}".${hint} Commands: ${grammar.verbs.join(", ")}.${tail}`,
  );
}
