import { type ScopeName, scopeDepth } from "../availability/scopes.ts";
import { CommandError } from "./errors.ts";
import { closest } from "./suggest.ts";

/**
 * What the `/tools` and `/skills` parsers share: a verb list, the usage line
 * of each verb, how a mistake becomes that command's own typed error, and
 * how the item and the scope of `on`, `off`, `reset` and `why` are read. The
 * readers below word the common mistakes the same way in both, so a new
 * command is its grammar and a reader per verb of its own.
 */
export interface CommandGrammar<
  V extends string,
  E extends Error,
  S extends ScopeName = ScopeName,
> {
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
  /** Makes the command's typed error; a {@link CommandError} unless the command has its own. */
  readonly error?: (token: string | null, verb: V | null, usage: string, problem: string) => E;
  /** Reads the item an `on`, `off` or `reset` names (a tool key, a skill name), or throws. */
  readonly item?: (token: string, verb: V) => string;
  /** Reads the scope word after the item; `undefined` is the command's default scope. */
  readonly scope?: (token: string | undefined, verb: V) => S;
  /** The scopes the command changes; one it names none of is the deepest. */
  readonly scopes?: readonly S[];
}

/** A grammar whose commands switch items per scope: `/tools` and `/skills`. */
export type ScopedGrammar<V extends string, E extends Error, S extends ScopeName> = CommandGrammar<
  V,
  E,
  S
> &
  Required<Pick<CommandGrammar<V, E, S>, "item" | "scope" | "scopes">>;

/** Whether a word (lowercased) names one of the grammar's scopes. */
export function isScopeWord<S extends string>(
  grammar: { readonly scopes: readonly S[] },
  word: string,
): word is S {
  return (grammar.scopes as readonly string[]).includes(word);
}

/** The scope a command changes when it names none: the deepest of its scopes. */
export function defaultScope<S extends ScopeName>(grammar: { readonly scopes: readonly S[] }): S {
  return [...grammar.scopes].sort((a, b) => scopeDepth(b) - scopeDepth(a))[0] as S;
}

/** Chat clients wrap ids in code spans and quotes: `web_search`, "web_search". */
export const WRAPPING = /^[`"'“”‘’]+|[`"'“”‘’]+$/g;

/** `/tools`, `!tools` or `/tools@BotName` (Telegram in groups), in any case. */
export function commandPrefix(name: string): RegExp {
  return new RegExp(`^[/!]${name}(?:@[A-Za-z0-9_]+)?(?=\\s|$)`, "i");
}

/**
 * Reads a command's text with the grammar: the prefix is skipped, words lose
 * their wrapping, and the first word picks the verb's reader (in any case).
 * No words is `empty`; an unknown verb is the grammar's typed error.
 */
export function parseWith<V extends string, E extends Error, C>(
  grammar: CommandGrammar<V, E>,
  text: string,
  readers: Readonly<Record<V, (args: readonly string[], verb: V) => C>>,
  empty: C,
): C {
  const [first, ...args] = text
    .trim()
    .replace(commandPrefix(grammar.command.slice(1)), "")
    .split(/\s+/)
    .map((token) => token.replace(WRAPPING, ""))
    .filter((token) => token !== "");
  if (first === undefined) return empty;
  const verb = asVerb(grammar, first.toLowerCase());
  if (verb === undefined) throw unknownVerb(grammar, first, args);
  return readers[verb](args, verb);
}

/** The grammar's error for `token`, quoting the verb's usage line. */
export function invalid<V extends string, E extends Error>(
  grammar: CommandGrammar<V, E>,
  token: string | null,
  verb: V,
  problem: string,
): E {
  return errorOf(grammar, token, verb, grammar.usage[verb], problem);
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
  throw invalid(grammar, extra, verb, `Unexpected "${extra}"`);
}

export function missing<V extends string, E extends Error>(
  grammar: CommandGrammar<V, E>,
  verb: V,
  what: string,
): E {
  return invalid(grammar, null, verb, `Missing ${what}`);
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
  if (second !== undefined && ["on", "off", "ask"].includes(second) && asVerb(grammar, second)) {
    // `/tools web_search off`: the person knows what they want, just not the word order.
    hint = ` To switch a ${grammar.noun}, put ${second} first: ${grammar.command} ${second} ${token}.`;
  } else {
    const synonym = Object.hasOwn(grammar.synonyms, lower) ? grammar.synonyms[lower] : undefined;
    const near = synonym ?? closest(lower, grammar.verbs, 1)[0];
    hint = near === undefined ? "" : ` Did you mean "${near}"?`;
  }
  const tail = grammar.unknownTail ? ` ${grammar.unknownTail}` : "";
  return errorOf(
    grammar,
    token,
    null,
    grammar.usage.help,
    `Unknown command "${token}".${hint} Commands: ${grammar.verbs.join(", ")}.${tail}`,
  );
}

export function asVerb<V extends string>(
  grammar: CommandGrammar<V, Error>,
  word: string,
): V | undefined {
  return (grammar.verbs as readonly string[]).includes(word) ? (word as V) : undefined;
}

function errorOf<V extends string, E extends Error>(
  grammar: CommandGrammar<V, E>,
  token: string | null,
  verb: V | null,
  usage: string,
  problem: string,
): E {
  return grammar.error
    ? grammar.error(token, verb, usage, problem)
    : (new CommandError<V>(token, verb, usage, problem) as unknown as E);
}
