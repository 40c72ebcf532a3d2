import { closest } from "./suggest.ts";

/**
 * What the `/tools` and `/skills` parsers share: a verb list, the usage line
 * of each verb, how a mistake becomes that command's own typed error, and
 * how the item and the scope of `on`, `off`, `reset` and `why` are read. The
 * readers below word the common mistakes the same way in both, so a new
 * command is its grammar and a reader per verb of its own.
 */
export interface CommandGrammar<V extends string, E extends Error, S extends string = string> {
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
  /** Reads the item an `on`, `off` or `reset` names (a tool key, a skill name), or throws. */
  readonly item?: (token: string, verb: V) => string;
  /** Reads the scope word after the item; `undefined` is the command's default scope. */
  readonly scope?: (token: string | undefined, verb: V) => S;
  /** Whether a word (lowercased) names a scope the command changes. */
  readonly isScope?: (word: string) => word is S;
}

/** A grammar whose commands switch items per scope: `/tools` and `/skills`. */
export type ScopedGrammar<V extends string, E extends Error, S extends string> = CommandGrammar<
  V,
  E,
  S
> &
  Required<Pick<CommandGrammar<V, E, S>, "item" | "scope" | "isScope">>;

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
  return grammar.error(token, verb, grammar.usage[verb], problem);
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

/** A verb that takes no arguments (`list`, `reload`). */
export function readBare<V extends string, E extends Error>(
  grammar: CommandGrammar<V, E>,
  args: readonly string[],
  verb: V,
): { readonly verb: V } {
  noMore(grammar, args, 0, verb);
  return { verb };
}

/** `help [command]`: the topic, or null for every command. */
export function readHelp<V extends string, E extends Error>(
  grammar: CommandGrammar<V, E>,
  args: readonly string[],
): V | null {
  const help = "help" as V;
  noMore(grammar, args, 1, help);
  const topic = args[0];
  if (topic === undefined) return null;
  const verb = asVerb(grammar, topic.toLowerCase());
  if (verb !== undefined) return verb;
  throw invalid(
    grammar,
    topic,
    help,
    `There is no ${grammar.command} command "${topic}". Commands: ${grammar.verbs.join(", ")}`,
  );
}

/** `on|off <item> [scope]`. */
export function readSwitch<V extends string, E extends Error, S extends string>(
  grammar: ScopedGrammar<V, E, S>,
  args: readonly string[],
  verb: V,
): { readonly item: string; readonly scope: S } {
  const item = args[0];
  if (item === undefined) throw missing(grammar, verb, `the ${grammar.noun} to switch ${verb}`);
  noMore(grammar, args, 2, verb);
  return { item: grammar.item(item, verb), scope: grammar.scope(args[1], verb) };
}

/** `why <item>`, the item read by `read`. */
export function readWhy<V extends string, E extends Error>(
  grammar: CommandGrammar<V, E>,
  args: readonly string[],
  read: (token: string) => string,
): string {
  const why = "why" as V;
  const item = args[0];
  if (item === undefined) throw missing(grammar, why, `the ${grammar.noun} to explain`);
  noMore(grammar, args, 1, why);
  return read(item);
}

/**
 * `reset [<item>|all] [scope]`: `item: null` forgets everything at the scope.
 * A lone scope word (`reset channel`) reads as "reset everything in the
 * channel": a scope word is never an item here.
 */
export function readReset<V extends string, E extends Error, S extends string>(
  grammar: ScopedGrammar<V, E, S>,
  args: readonly string[],
): { readonly item: string | null; readonly scope: S } {
  const reset = "reset" as V;
  noMore(grammar, args, 2, reset);
  const [first, second] = args;
  if (first === undefined) return { item: null, scope: grammar.scope(undefined, reset) };
  const lower = first.toLowerCase();
  if (second === undefined && grammar.isScope(lower)) return { item: null, scope: lower };
  const item = lower === "all" ? null : grammar.item(first, reset);
  return { item, scope: grammar.scope(second, reset) };
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

function asVerb<V extends string>(grammar: CommandGrammar<V, Error>, word: string): V | undefined {
  return (grammar.verbs as readonly string[]).includes(word) ? (word as V) : undefined;
}

/** The usage lines of the verbs every scoped command has, for `command` switching `noun`s. */
export function scopedUsage(command: string, noun: string) {
  return {
    list: `${command} [list]`,
    on: `${command} on <${noun}> [scope]`,
    off: `${command} off <${noun}> [scope]`,
    reset: `${command} reset [<${noun}>|all] [scope]`,
    why: `${command} why <${noun}>`,
    help: `${command} help [command]`,
  } as const;
}
