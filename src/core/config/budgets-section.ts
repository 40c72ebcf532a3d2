import { z } from "zod";
import { describeValue } from "./errors.ts";

/**
 * Daily token budgets, counted from the usage the model provider reports
 * (prompt tokens, cached ones among them, plus completion tokens). Once a
 * person's or a workspace's budget for the day (UTC) is spent, their next
 * message is refused until midnight UTC; a turn in progress always finishes.
 *
 * Each admitted message reserves its turn's estimated cost until the turn
 * ends and its real usage is counted, so messages arriving together cannot
 * all start under the budget.
 *
 * ```yaml
 * budgets:
 *   tokens:
 *     user: 200000/day         # each person, across conversations
 *     workspace: 2000000/day   # a Slack team, Discord guild or Telegram chat
 *   turn_estimate_tokens: 8000 # a turn's reservation for someone with none counted yet
 * ```
 */
export interface BudgetsConfig {
  /** Tokens per person per UTC day; undefined: no budget. */
  readonly userTokensPerDay?: number;
  /** Tokens per workspace per UTC day; undefined: no budget. */
  readonly workspaceTokensPerDay?: number;
  /**
   * What a turn reserves when the person has no turn counted this month;
   * undefined: `DEFAULT_TURN_ESTIMATE` (see core/budget/reservation.ts).
   */
  readonly turnEstimateTokens?: number;
}

export const DEFAULT_BUDGETS: BudgetsConfig = Object.freeze({});

/** More than any model's daily use by one workspace; a typo such as 2e12 is surely one. */
const MAX_BUDGET = 1_000_000_000_000;

const UNITS: Readonly<Record<string, number>> = { "": 1, k: 1_000, m: 1_000_000 };

/**
 * Reads a token budget as written in the config: `200000/day`, `200k/day`,
 * `2M/day`, `2_000_000/day`, or a bare number (per day). Returns the tokens,
 * or a sentence naming the problem and the fix.
 *
 * @example
 * parseTokenBudget("200k/day"); // { tokens: 200000 }
 * parseTokenBudget("5/hour");   // { problem: "...only per day..." }
 */
export function parseTokenBudget(
  written: string | number,
): { readonly tokens: number } | { readonly problem: string } {
  if (typeof written === "number") return checked(written, String(written));
  const match = /^\s*(\d[\d_,]*)\s*([km]?)\s*(?:\/\s*([a-z]+))?\s*$/i.exec(written);
  if (!match) {
    return {
      problem: `${describeValue(written)} is not a token budget. Write tokens per day, e.g. 200000/day or 200k/day.`,
    };
  }
  const [, digits = "", unit = "", period] = match;
  if (period !== undefined && period.toLowerCase() !== "day") {
    return {
      problem: `${describeValue(written)}: token budgets are per day (they reset at midnight UTC). Write e.g. 200000/day.`,
    };
  }
  const count = Number(digits.replace(/[_,]/g, "")) * (UNITS[unit.toLowerCase()] ?? 1);
  return checked(count, written);
}

function checked(tokens: number, written: string): { tokens: number } | { problem: string } {
  if (!Number.isSafeInteger(tokens) || tokens < 1 || tokens > MAX_BUDGET) {
    return {
      problem: `${describeValue(written)} is out of range: a budget is a whole number of tokens from 1 to ${MAX_BUDGET}, e.g. 200000/day.`,
    };
  }
  return { tokens };
}

const budget = z
  .union([z.string(), z.number()], {
    error: (iss) =>
      `expected tokens per day such as 200000/day, found ${describeValue(iss.input)}.`,
  })
  .transform((written, ctx) => {
    const read = parseTokenBudget(written);
    if ("tokens" in read) return read.tokens;
    ctx.addIssue({ code: "custom", message: read.problem });
    return z.NEVER;
  });

const tokensSection = z.strictObject(
  { user: budget.optional(), workspace: budget.optional() },
  {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown key ${JSON.stringify(iss.keys[0])}. budgets.tokens takes user: and workspace:, e.g. user: 200000/day.`
        : `expected a map, found ${describeValue(iss.input)}. Put user: and workspace: under budgets.tokens:.`,
  },
);

/** A turn's estimate: a whole number of tokens, written as a budget is but without `/day`. */
const turnEstimate = z
  .union([z.string(), z.number()], {
    error: (iss) => `expected tokens such as 8000 or 8k, found ${describeValue(iss.input)}.`,
  })
  .transform((written, ctx) => {
    const read =
      typeof written === "string" && written.includes("/") ? undefined : parseTokenBudget(written);
    if (read && "tokens" in read) return read.tokens;
    ctx.addIssue({
      code: "custom",
      message: `${describeValue(written)} is not a number of tokens. Write what one turn costs, e.g. 8000 or 8k.`,
    });
    return z.NEVER;
  });

export const budgetsSection = z
  .strictObject(
    {
      tokens: z.preprocess((v) => v ?? {}, tokensSection).default({}),
      turn_estimate_tokens: turnEstimate.optional(),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown key ${JSON.stringify(iss.keys[0])}. The budgets section takes tokens: and turn_estimate_tokens: (message rates are under limits:).`
          : `expected a map, found ${describeValue(iss.input)}. Put tokens: under budgets:.`,
    },
  )
  .transform(
    (section): BudgetsConfig =>
      Object.freeze({
        ...(section.tokens.user !== undefined ? { userTokensPerDay: section.tokens.user } : {}),
        ...(section.tokens.workspace !== undefined
          ? { workspaceTokensPerDay: section.tokens.workspace }
          : {}),
        ...(section.turn_estimate_tokens !== undefined
          ? { turnEstimateTokens: section.turn_estimate_tokens }
          : {}),
      }),
  );
