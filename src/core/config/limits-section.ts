import { z } from "zod";
import { describeValue } from "./errors.ts";
import { placeOverrides } from "./place-map.ts";
import { parseRate, type Rate } from "./rate-spec.ts";
import { sectionMap } from "./section-map.ts";

/**
 * How many messages the bot takes, per person, per conversation and per
 * workspace, counted in Redis so every ingress process agrees. A message
 * over a limit is answered once with the limit and when it resets, and
 * never queued.
 *
 * ```yaml
 * limits:
 *   user: 20/10m            # per person (platform:user), wherever they write
 *   conversation: 60/h      # per conversation (a DM, a channel or a thread)
 *   workspace: 600/h        # per Slack team, Discord guild, Telegram chat
 *   workspaces: { "slack:T0123": { workspace: 2000/h } }  # deepest wins, per key
 *   channels: { "discord:123": { user: off } }
 * ```
 *
 * No limit is set by default; `off` lifts a shallower scope's limit.
 */
export const LIMIT_NAMES = ["user", "conversation", "workspace"] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** A rate, or `null` where a scope says `off`. */
export type LimitRules = Readonly<Partial<Record<LimitName, Rate | null>>>;

export interface LimitsConfig extends LimitRules {
  readonly workspaces: Readonly<Record<string, LimitRules>>;
  readonly channels: Readonly<Record<string, LimitRules>>;
}

export const DEFAULT_LIMITS: LimitsConfig = Object.freeze({
  workspaces: Object.freeze({}),
  channels: Object.freeze({}),
});

/** The limits of one conversation, deepest scope winning per limit. */
export function limitsFor(
  config: LimitsConfig,
  address: { readonly platform: string; readonly workspace: string; readonly channel: string },
): Readonly<Partial<Record<LimitName, Rate>>> {
  const own = (map: Readonly<Record<string, LimitRules>>, key: string) =>
    Object.hasOwn(map, key) ? map[key] : undefined;
  const workspace = own(config.workspaces, `${address.platform}:${address.workspace}`);
  const channel = own(config.channels, `${address.platform}:${address.channel}`);
  const out: Partial<Record<LimitName, Rate>> = {};
  for (const name of LIMIT_NAMES) {
    const layers = [channel, workspace, config];
    const deciding = layers.find((layer) => layer !== undefined && layer[name] !== undefined);
    const rate = deciding?.[name];
    if (rate) out[name] = rate;
  }
  return out;
}

const rate = z
  .union([z.string(), z.boolean()], {
    error: (iss) => `expected a rate such as 20/10m, or off, found ${describeValue(iss.input)}.`,
  })
  .transform((value, ctx): Rate | null => {
    if (value === false || value === "off") return null;
    if (value === true) {
      ctx.addIssue({
        code: "custom",
        message: "a limit needs a rate such as 20/10m; on alone says how many.",
      });
      return z.NEVER;
    }
    const reading = parseRate(value);
    if (reading.ok) return Object.freeze(reading.rate);
    ctx.addIssue({ code: "custom", message: reading.problem });
    return z.NEVER;
  });

const RULE_KEYS = "user:, conversation: and workspace:";

const rules = z.strictObject(
  { user: rate.optional(), conversation: rate.optional(), workspace: rate.optional() },
  {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown key ${JSON.stringify(iss.keys[0])}. Limits are ${RULE_KEYS}.`
        : `expected a map of limits (${RULE_KEYS}), found ${describeValue(iss.input)}.`,
  },
);

export const limitsSection = sectionMap("limits", {
  user: rate.optional(),
  conversation: rate.optional(),
  workspace: rate.optional(),
  ...placeOverrides(
    rules.transform((r): LimitRules => Object.freeze(definedOnly(r))),
    "limits",
  ),
}).transform(
  (l): LimitsConfig =>
    Object.freeze({
      ...definedOnly({ user: l.user, conversation: l.conversation, workspace: l.workspace }),
      workspaces: Object.freeze({ ...l.workspaces }),
      channels: Object.freeze({ ...l.channels }),
    }),
);

function definedOnly(r: Partial<Record<LimitName, Rate | null | undefined>>): LimitRules {
  const out: Partial<Record<LimitName, Rate | null>> = {};
  for (const name of LIMIT_NAMES) if (r[name] !== undefined) out[name] = r[name];
  return out;
}
