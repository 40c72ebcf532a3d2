import { z } from "zod";
import { type AccessEntry, parseAccessEntry } from "./access-entry.ts";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * Who may talk to the bot, checked before a message is queued.
 *
 * ```yaml
 * access:
 *   dm: pairing          # open | allowlist | pairing | closed (default pairing)
 *   groups: open         # open | allowlist | closed (default open)
 *   allow: [telegram:123, slack:T0123, discord:guild:456, telegram:chat:-1001234]
 *   on_refused_group: leave   # leave | silent: a Telegram group not let in is told once and left
 *   workspaces: { "slack:T0123": { groups: allowlist } }    # deepest wins, per key
 *   channels: { "telegram:-1001234": { groups: open } }
 * ```
 *
 * `allow:` lists add up from the shallowest scope to the deepest; `dm:`,
 * `groups:` and `on_refused_group:` are the deepest scope's that names them.
 * Owners and admins (`permissions:`) always pass; people an owner approved
 * by pairing join the allow list.
 */
export type DmPolicy = "open" | "allowlist" | "pairing" | "closed";
export type GroupPolicy = "open" | "allowlist" | "closed";
export type RefusedGroup = "leave" | "silent";

export interface AccessRules {
  readonly dm?: DmPolicy;
  readonly groups?: GroupPolicy;
  readonly allow: readonly AccessEntry[];
  readonly onRefusedGroup?: RefusedGroup;
}

export interface AccessConfig {
  readonly dm: DmPolicy;
  readonly groups: GroupPolicy;
  readonly allow: readonly AccessEntry[];
  readonly onRefusedGroup: RefusedGroup;
  /** Rules by `platform:workspace` and by `platform:channel`. */
  readonly workspaces: Readonly<Record<string, AccessRules>>;
  readonly channels: Readonly<Record<string, AccessRules>>;
}

/** What applies to one conversation: the scopes folded, deepest winning. */
export interface AccessPolicy {
  readonly dm: DmPolicy;
  readonly groups: GroupPolicy;
  readonly allow: readonly AccessEntry[];
  readonly onRefusedGroup: RefusedGroup;
}

export const DM_POLICIES = ["open", "allowlist", "pairing", "closed"] as const;
export const GROUP_POLICIES = ["open", "allowlist", "closed"] as const;

export const DEFAULT_ACCESS: AccessConfig = Object.freeze({
  dm: "pairing",
  groups: "open",
  allow: Object.freeze([]) as readonly AccessEntry[],
  onRefusedGroup: "leave",
  workspaces: Object.freeze({}),
  channels: Object.freeze({}),
});

export function accessPolicyFor(
  config: AccessConfig,
  address: { readonly platform: string; readonly workspace: string; readonly channel: string },
): AccessPolicy {
  const own = (map: Readonly<Record<string, AccessRules>>, key: string) =>
    Object.hasOwn(map, key) ? map[key] : undefined;
  const workspace = own(config.workspaces, `${address.platform}:${address.workspace}`);
  const channel = own(config.channels, `${address.platform}:${address.channel}`);
  return {
    dm: channel?.dm ?? workspace?.dm ?? config.dm,
    groups: channel?.groups ?? workspace?.groups ?? config.groups,
    allow: [...config.allow, ...(workspace?.allow ?? []), ...(channel?.allow ?? [])],
    onRefusedGroup: channel?.onRefusedGroup ?? workspace?.onRefusedGroup ?? config.onRefusedGroup,
  };
}

const choice = <T extends readonly [string, ...string[]]>(values: T, what: string) =>
  z.enum(values, {
    error: (iss) =>
      `expected one of ${values.join(", ")}, found ${describeValue(iss.input)}. It says ${what}.`,
  });

const dm = choice(DM_POLICIES, "who may write to the bot directly");
const groups = choice(GROUP_POLICIES, "in which groups the bot answers");
const onRefusedGroup = choice(
  ["leave", "silent"] as const,
  "what the bot does in a Telegram group not let in",
);

const allow = z.array(
  z
    .string({ error: (iss) => `expected an access entry, found ${describeValue(iss.input)}.` })
    .transform((text, ctx) => {
      const reading = parseAccessEntry(text);
      if (reading.ok) return reading.entry;
      ctx.addIssue({ code: "custom", message: reading.problem });
      return z.NEVER;
    }),
  {
    error: (iss) =>
      `expected a list of access entries, e.g. [telegram:123, slack:T0123], found ${describeValue(iss.input)}.`,
  },
);

const RULE_KEYS = "dm:, groups:, allow: and on_refused_group:";

const rules = z
  .strictObject(
    {
      dm: dm.optional(),
      groups: groups.optional(),
      allow: allow.default([]),
      on_refused_group: onRefusedGroup.optional(),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown key ${JSON.stringify(iss.keys[0])}. A workspace's or channel's access rules take ${RULE_KEYS}.`
          : `expected a map of access rules (${RULE_KEYS}), found ${describeValue(iss.input)}.`,
    },
  )
  .transform(
    (r): AccessRules =>
      Object.freeze({
        ...(r.dm ? { dm: r.dm } : {}),
        ...(r.groups ? { groups: r.groups } : {}),
        allow: Object.freeze(r.allow),
        ...(r.on_refused_group ? { onRefusedGroup: r.on_refused_group } : {}),
      }),
  );

const scoped = (what: string) =>
  z.record(
    z.string().regex(/^[a-z][a-z0-9_-]*:.+$/, {
      error: `a ${what} is written platform:id, e.g. "slack:T0123" or "telegram:-1001234".`,
    }),
    rules,
    {
      error: (iss) =>
        `expected a map of ${what}s to access rules, found ${describeValue(iss.input)}.`,
    },
  );

export const accessSection = sectionMap("access", {
  dm: dm.default(DEFAULT_ACCESS.dm),
  groups: groups.default(DEFAULT_ACCESS.groups),
  allow: allow.default([]),
  on_refused_group: onRefusedGroup.default(DEFAULT_ACCESS.onRefusedGroup),
  workspaces: scoped("workspace").default({}),
  channels: scoped("channel").default({}),
}).transform(
  (a): AccessConfig =>
    Object.freeze({
      dm: a.dm,
      groups: a.groups,
      allow: Object.freeze(a.allow),
      onRefusedGroup: a.on_refused_group,
      workspaces: Object.freeze({ ...a.workspaces }),
      channels: Object.freeze({ ...a.channels }),
    }),
);
