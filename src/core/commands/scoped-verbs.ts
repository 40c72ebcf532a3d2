import type { ScopeName } from "../availability/scopes.ts";
import {
  asVerb,
  type CommandGrammar,
  defaultScope,
  invalid,
  isScopeWord,
  missing,
  noMore,
  type ScopedGrammar,
} from "./grammar.ts";

/**
 * The verbs every scoped command (`/tools`, `/skills`) has, read and written
 * once: `list`, `help`, `on`/`off <item> [scope]`, `reset [<item>|all]
 * [scope]`, `why <item>` and `<value|follow> [scope]` settings, and the
 * words people use for them (their usage lines are `scopedUsage`'s).
 */

/** Words people use for the shared verbs; suggested, never accepted. */
export const COMMON_SYNONYMS = {
  enable: "on",
  disable: "off",
  ls: "list",
  show: "list",
  status: "list",
  explain: "why",
  clear: "reset",
} as const;

/**
 * The commands every scoped grammar reads, as data: `F` names the item
 * (`key` for /tools, `name` for /skills), `V` the verbs, `S` the scopes.
 */
export type CommonCommands<V extends string, S extends ScopeName, F extends string> =
  | { readonly verb: "list" }
  | { readonly verb: "help"; readonly topic: V | null }
  | ({ readonly verb: "on" | "off"; readonly scope: S } & { readonly [K in F]: string })
  | ({ readonly verb: "reset"; readonly scope: S } & { readonly [K in F]: string | null });

/** What writing a command's text needs of its grammar. */
type Formatting<S extends ScopeName> = Pick<ScopedGrammar<string, Error, S>, "command" | "scopes">;

/** A command as the shared formatter reads it: its item under one name. */
export interface CommonCommand<S extends ScopeName> {
  readonly verb: string;
  readonly item?: string | null;
  readonly scope?: S;
  readonly topic?: string | null;
}

/** `text` after the command, with the scope unless it is the default one. */
export function scopedText<S extends ScopeName>(
  grammar: Formatting<S>,
  text: string,
  scope: S,
): string {
  const said = `${grammar.command} ${text}`;
  return scope === defaultScope(grammar) ? said : `${said} ${scope}`;
}

/**
 * The canonical text of the verbs every scoped command has (`help`,
 * `on`/`off` and /tools' `ask`, `reset`, `why`, and any verb without arguments), so that
 * parsing it gives the command back.
 */
export function formatCommon<S extends ScopeName>(
  grammar: Formatting<S>,
  command: CommonCommand<S>,
): string {
  const { verb, item, scope = defaultScope(grammar) } = command;
  switch (verb) {
    case "help":
      return command.topic ? `${grammar.command} help ${command.topic}` : `${grammar.command} help`;
    case "on":
    case "off":
    case "ask":
      return scopedText(grammar, `${verb} ${item}`, scope);
    case "reset":
      // An item spelled like a scope would read as "reset that scope": name the scope explicitly.
      return item && isScopeWord(grammar, item.toLowerCase())
        ? `${grammar.command} reset ${item} ${scope}`
        : scopedText(grammar, `reset ${item ?? "all"}`, scope);
    case "why":
      return `${grammar.command} why ${item}`;
    default:
      return `${grammar.command} ${verb}`;
  }
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
export function readSwitch<V extends string, E extends Error, S extends ScopeName>(
  grammar: ScopedGrammar<V, E, S>,
  args: readonly string[],
  verb: V,
): { readonly item: string; readonly scope: S } {
  const item = args[0];
  if (item === undefined) {
    const what =
      verb === "ask"
        ? `the ${grammar.noun} to ask about first`
        : `the ${grammar.noun} to switch ${verb}`;
    throw missing(grammar, verb, what);
  }
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
export function readReset<V extends string, E extends Error, S extends ScopeName>(
  grammar: ScopedGrammar<V, E, S>,
  args: readonly string[],
): { readonly item: string | null; readonly scope: S } {
  const reset = "reset" as V;
  noMore(grammar, args, 2, reset);
  const [first, second] = args;
  if (first === undefined) return { item: null, scope: grammar.scope(undefined, reset) };
  const lower = first.toLowerCase();
  if (second === undefined && isScopeWord(grammar, lower)) return { item: null, scope: lower };
  const item = lower === "all" ? null : grammar.item(first, reset);
  return { item, scope: grammar.scope(second, reset) };
}

/**
 * `<value|follow> [scope]` (`mode`, `preset`): `value: null` is `follow`,
 * left to the shallower scopes. The caller checks the value.
 */
export function readSetting<V extends string, E extends Error, S extends ScopeName>(
  grammar: ScopedGrammar<V, E, S>,
  args: readonly string[],
  verb: V,
  what: string,
): { readonly value: string | null; readonly scope: S } {
  const value = args[0];
  if (value === undefined) throw missing(grammar, verb, what);
  noMore(grammar, args, 2, verb);
  const scope = grammar.scope(args[1], verb);
  return { value: value.toLowerCase() === "follow" ? null : value, scope };
}

type Reader<V extends string, C> = (args: readonly string[], verb: V) => C;

/** A grammar's reader for each of its verbs, given the words after the verb. */
export type VerbReaders<V extends string, C> = Readonly<Record<V, Reader<V, C>>>;

/**
 * The readers of the verbs every scoped command has: `list`, `help`,
 * `on`/`off <item> [scope]` and `reset [<item>|all] [scope]`. `field` names
 * the item in the command (`key` for /tools, `name` for /skills).
 */
export function scopedReaders<V extends string, E extends Error, S extends ScopeName, C>(
  grammar: ScopedGrammar<V, E, S>,
  field: string,
): Readonly<Record<"list" | "help" | "on" | "off" | "reset", Reader<V, C>>> {
  const command = (fields: object) => fields as C;
  const switchItem: Reader<V, C> = (args, verb) => {
    const { item, scope } = readSwitch(grammar, args, verb);
    return command({ verb, [field]: item, scope });
  };
  return {
    list: (args) => command(readBare(grammar, args, "list" as V)),
    help: (args) => command({ verb: "help", topic: readHelp(grammar, args) }),
    on: switchItem,
    off: switchItem,
    reset: (args) => {
      const { item, scope } = readReset(grammar, args);
      return command({ verb: "reset", [field]: item, scope });
    },
  };
}
