import { z } from "zod";
import { AGENT_ID } from "./agents-section.ts";
import { describeValue } from "./errors.ts";
import { strictMap } from "./section-map.ts";

/** The places a config binding names, shallow to deep; a conversation is bound from chat only. */
export const CONFIG_BINDING_SCOPES = ["account", "workspace", "channel"] as const;
export type ConfigBindingScope = (typeof CONFIG_BINDING_SCOPES)[number];

/**
 * One binding of `bindings:`: `agent` answers wherever `target` is, written
 * `platform:id` (`slack:T0123`, a Slack app or Telegram bot account as
 * `telegram:support_bot`). Deepest wins: a channel's binding over its
 * workspace's, a workspace's over its bot account's.
 *
 * ```yaml
 * bindings:
 *   - { agent: support, channel: "slack:C0HELP" }
 *   - { agent: engineering, workspace: "slack:T0ENG" }
 *   - { agent: assistant, account: "telegram:my_own_bot" }
 * ```
 */
export interface BindingConfig {
  readonly agent: string;
  readonly scope: ConfigBindingScope;
  readonly target: string;
}

export type BindingsConfig = readonly BindingConfig[];
export const NO_BINDINGS: BindingsConfig = Object.freeze([]);

const PLACE = /^[a-z][a-z0-9_-]*:.+$/;

const place = (scope: ConfigBindingScope) =>
  z
    .string({
      error: (iss) => `expected a ${scope} written platform:id, found ${describeValue(iss.input)}.`,
    })
    .refine((value) => PLACE.test(value), {
      error: (iss) =>
        `${describeValue(iss.input)} is not a ${scope}. A ${scope} is written platform:id, e.g. "slack:T0123".`,
    });

const entry = strictMap(
  {
    agent: z
      .string({ error: (iss) => `expected an agent id, found ${describeValue(iss.input)}.` })
      .refine((id) => AGENT_ID.test(id), {
        error: (iss) => `${describeValue(iss.input)} is not an agent id, e.g. support.`,
      }),
    account: place("account").optional(),
    workspace: place("workspace").optional(),
    channel: place("channel").optional(),
  },
  {
    takes: "A binding takes agent: and one of account:, workspace: or channel:.",
    notAMap: (found) =>
      `expected a map such as { agent: support, channel: "slack:C0HELP" }, found ${found}.`,
  },
).transform((raw, ctx): BindingConfig => {
  const named = CONFIG_BINDING_SCOPES.filter((scope) => raw[scope] !== undefined);
  const [scope] = named;
  if (named.length !== 1 || scope === undefined) {
    ctx.addIssue({
      code: "custom",
      message:
        named.length === 0
          ? `binds ${raw.agent} nowhere. Add one of account:, workspace: or channel:.`
          : `names ${named.join(" and ")}; a binding names one place. Write one binding per place.`,
    });
    return z.NEVER;
  }
  return Object.freeze({ agent: raw.agent, scope, target: raw[scope] as string });
});

/** The `bindings:` section: which agent answers where. One place is bound once. */
export const bindingsSection = z
  .array(entry, {
    error: (iss) =>
      `expected a list of bindings such as - { agent: support, channel: "slack:C0HELP" }, found ${describeValue(iss.input)}.`,
  })
  .superRefine((bindings, ctx) => {
    const seen = new Map<string, string>();
    bindings.forEach((binding, index) => {
      const place = `${binding.scope} ${binding.target}`;
      const earlier = seen.get(place);
      if (earlier !== undefined && earlier !== binding.agent) {
        ctx.addIssue({
          code: "custom",
          path: [index],
          message: `binds the ${place} to ${binding.agent}, but an earlier binding gives it to ${earlier}. Keep one.`,
        });
      }
      seen.set(place, binding.agent);
    });
  })
  .transform((bindings): BindingsConfig => Object.freeze(bindings));

/** What {@link accountBindings} reads of a platform's section: its `accounts:`, each maybe with an `agent:`. */
interface AccountsWithAgents {
  readonly accounts?: readonly { readonly id: string; readonly agent?: string }[];
}

/**
 * The bindings a platform section's `accounts:` make: an account written
 * with `agent: support` binds it as `{ agent: support, account: "telegram:<id>" }`
 * would in `bindings:`. Read from every section with an `accounts:` list, so
 * a platform added as a folder binds its accounts the same way.
 */
export function accountBindings(config: object): BindingConfig[] {
  const found: BindingConfig[] = [];
  for (const [platform, section] of Object.entries(config)) {
    const accounts = (section as AccountsWithAgents | null | undefined)?.accounts;
    if (!Array.isArray(accounts)) continue;
    for (const account of accounts) {
      if (typeof account?.agent !== "string") continue;
      found.push({ agent: account.agent, scope: "account", target: `${platform}:${account.id}` });
    }
  }
  return found;
}
