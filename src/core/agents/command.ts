import { BINDING_SCOPES, type BindingScope } from "../availability/scopes.ts";
import { closest } from "../commands/suggest.ts";

/** The grammar of `/agent`, for usage lines and problems. */
export const AGENT_USAGE = "/agent [<id>|reset] [conversation|channel|workspace]";

/** `/agent`'s arguments, read. */
export type AgentCommand =
  /** `/agent`: which agent answers here, and why. */
  | { readonly kind: "show" }
  /** `/agent <id> [scope]`: bind the agent here; the conversation when no scope is named. */
  | { readonly kind: "bind"; readonly agent: string; readonly scope: BindingScope }
  /** `/agent reset [scope]`: drop the chat binding, so shallower bindings decide again. */
  | { readonly kind: "reset"; readonly scope: BindingScope }
  | { readonly kind: "bad"; readonly problem: string };

/**
 * Reads what follows `/agent`. `known` are the config's agent ids
 * (`default` among them); an id that is none of them is refused with the
 * closest one, so a typo never binds a conversation to nothing.
 *
 * @example
 * parseAgentCommand("support channel", ["default", "support"]);
 * // { kind: "bind", agent: "support", scope: "channel" }
 */
export function parseAgentCommand(args: string, known: readonly string[]): AgentCommand {
  const words = args
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w) => w.replace(/^[`"'“”‘’]+|[`"'“”‘’]+$/g, ""));
  if (words.length === 0) return { kind: "show" };
  if (words.length > 2) {
    return { kind: "bad", problem: `Too many words after /agent. Usage: ${AGENT_USAGE}` };
  }
  const [first = "", scopeWord] = words;
  const scope = scopeWord === undefined ? deepest() : scopeOf(scopeWord);
  if (scope === undefined) {
    return {
      kind: "bad",
      problem: `"${clip(scopeWord ?? "")}" is not a scope for /agent: use ${[...BINDING_SCOPES].reverse().join(", ")}. Usage: ${AGENT_USAGE}`,
    };
  }
  const word = first.toLowerCase();
  if (word === "reset") return { kind: "reset", scope };
  if (known.includes(word)) return { kind: "bind", agent: word, scope };
  const [near] = closest(word, known, 1);
  const hint = near === undefined ? "" : ` Did you mean ${near}?`;
  return {
    kind: "bad",
    problem: `"${clip(first)}" is not an agent here.${hint} Agents: ${[...known].sort().join(", ")}.`,
  };
}

function deepest(): BindingScope {
  return BINDING_SCOPES[BINDING_SCOPES.length - 1] as BindingScope;
}

function scopeOf(word: string): BindingScope | undefined {
  return BINDING_SCOPES.find((scope) => scope === word.toLowerCase());
}

/** A word as a reply quotes it: short, whatever was typed. */
function clip(word: string): string {
  return word.length > 40 ? `${word.slice(0, 40)}…` : word;
}
