import { z } from "zod";
import { describeValue } from "./errors.ts";
import { strictMap } from "./section-map.ts";

/**
 * The bounds of the delegations an agent starts (its `delegation:` key),
 * over the whole tree of children below one of its calls.
 */
export interface DelegationLimits {
  /** How many levels of agents below this one may run: 1 (the default) lets a child ask no one. */
  readonly depth: number;
  /** Model steps one child may take (its closing note included). */
  readonly steps: number;
  /** Prompt and completion tokens one child may spend before it must stop. */
  readonly tokens: number;
}

/** The bounds of an agent's delegations when its `delegation:` key leaves them out. */
export const DEFAULT_DELEGATION: DelegationLimits = Object.freeze({
  depth: 1,
  steps: 8,
  tokens: 50_000,
});

const bound = (what: string, max: number) =>
  z
    .number({ error: (iss) => `expected ${what}, found ${describeValue(iss.input)}.` })
    .int({ error: `expected ${what} as a whole number.` })
    .min(1, { error: `expected ${what}, at least 1.` })
    .max(max, { error: `expected ${what}, at most ${max}.` });

/** `delegation:` of an agent (an `agents:` entry, or the top-level `agent:` for `default`). */
export const delegationField = strictMap(
  {
    depth: bound("how many levels of agents may run below this one, e.g. 1", 4).optional(),
    steps: bound("the steps one child may take, e.g. 8", 100).optional(),
    tokens: bound("the tokens one child may spend, e.g. 50000", 10_000_000).optional(),
  },
  {
    takes: "delegation: takes depth:, steps: and tokens:.",
    notAMap: (found) => `expected a map such as { depth: 1, steps: 8 }, found ${found}.`,
  },
).transform(
  (raw): DelegationLimits =>
    Object.freeze({
      depth: raw.depth ?? DEFAULT_DELEGATION.depth,
      steps: raw.steps ?? DEFAULT_DELEGATION.steps,
      tokens: raw.tokens ?? DEFAULT_DELEGATION.tokens,
    }),
);

/**
 * `delegates:` of an agent: the agents it may ask with `ask_agent`, each
 * once, in the config's order; an empty list is none. Whether they exist
 * is checked against the whole file (agents-check.ts).
 */
export const delegatesField = z
  .array(
    z
      .string({
        error: (iss) => `expected an agent id from agents:, found ${describeValue(iss.input)}.`,
      })
      .min(1, { error: "expected an agent id from agents:, found an empty string." }),
    {
      error: (iss) =>
        `expected a list of agent ids, e.g. [engineering], found ${describeValue(iss.input)}.`,
    },
  )
  .transform((ids) => (ids.length > 0 ? Object.freeze([...new Set(ids)]) : undefined));
