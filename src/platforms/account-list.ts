import { z } from "zod";
import { EnvTemplateError, parseEnvTemplate } from "../core/config/env-template.ts";
import { describeValue } from "../core/config/errors.ts";
import { checkedBy } from "../core/config/parser-issue.ts";
import { listKeys, strictMap } from "../core/config/section-map.ts";

/**
 * What every platform's `accounts:` entry has: an id, which its
 * conversations carry (`telegram@sales:...` in their keys), and the agent
 * it is bound to, if any. Each platform adds its credentials.
 */
export interface AccountEntry {
  /** Letters, digits, `_` and `-`: it is part of every key of the account's conversations. */
  readonly id: string;
  /** The agent this account answers as (`agents:`); unset: the default agent. */
  readonly agent?: string;
}

/** An account id: short, and what a Redis key and a log line can hold as it is. */
const ID = /^[A-Za-z0-9_-]{1,32}$/;

/** The id's field, which every platform's account has first. */
const accountId = z
  .string({ error: (iss) => `expected an account id, found ${describeValue(iss.input)}.` })
  .regex(ID, {
    error: (iss) =>
      `${describeValue(iss.input)} is not an account id. Use 1 to 32 letters, digits, "_" or "-", e.g. sales.`,
  });

/** The agent's field: an agent id as `agents:` names it. */
export const accountAgent = z
  .string({ error: (iss) => `expected an agent id, found ${describeValue(iss.input)}.` })
  .regex(/^[A-Za-z0-9_-]{1,64}$/, {
    error: (iss) =>
      `${describeValue(iss.input)} is not an agent id. Agent ids use letters, digits, "_" and "-".`,
  });

/**
 * A credential: best written as `${VARIABLE}` so the secret stays in the
 * environment; filled in when the channel is built (account-secrets.ts).
 */
export function accountSecret(what: string, variable: string) {
  const example = `\${${variable}}`;
  return z
    .string({
      error: (iss) => `expected ${what}, e.g. ${example}, found ${describeValue(iss.input)}.`,
    })
    .min(1, { error: `${what} cannot be empty. Write ${example}.` })
    .superRefine(checkedBy(parseEnvTemplate, EnvTemplateError));
}

/**
 * A platform's `accounts:` list: entries of an `id:` and exactly `shape`'s
 * keys after it, no id twice. Its error for a missing or unknown key lists
 * what an entry takes.
 *
 * @example
 * accountList("telegram", { token: accountSecret(...), agent: accountAgent.optional() });
 */
export function accountList<T extends z.core.$ZodLooseShape>(platform: string, credentials: T) {
  const shape = { id: accountId, ...credentials };
  const takes = listKeys(Object.keys(shape));
  return z
    .array(
      strictMap(shape, {
        takes: `A ${platform} account takes ${takes}.`,
        notAMap: (found) =>
          `expected an account (a map of ${takes}), found ${found}. Each entry of ${platform}.accounts is one bot.`,
      }),
      {
        error: (iss) =>
          `expected a list of accounts, e.g. [{ id: sales, ... }], found ${describeValue(iss.input)}.`,
      },
    )
    .superRefine((accounts, ctx) => {
      const seen = new Set<string>();
      for (const [i, account] of accounts.entries()) {
        const id = (account as { id: string }).id;
        if (seen.has(id)) {
          ctx.addIssue({
            code: "custom",
            path: [i, "id"],
            message: `the account id ${JSON.stringify(id)} is used twice. Each ${platform} account needs an id of its own: it is part of its conversations' keys.`,
          });
        }
        seen.add(id);
      }
    });
}
