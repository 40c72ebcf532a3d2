import { z } from "zod";
import {
  APPROVER_RULES,
  type ApprovalPolicy,
  type ApproverRule,
  DEFAULT_APPROVAL_POLICY,
} from "../approvals/approval.ts";
import type { ConversationAddress } from "../conversation.ts";
import { describeValue } from "./errors.ts";
import { placeOverrides } from "./place-map.ts";
import { sectionMap, strictMap } from "./section-map.ts";

/**
 * How tool calls that ask first (`ask`) are decided: how long a request
 * waits, and who besides the bot's owners (who always may) decides it. A
 * workspace or channel may override either; per field, the deepest wins.
 *
 * ```yaml
 * approvals:
 *   timeout: 15m                         # then the call answers "not approved in time"
 *   approvers: [requester, admins]       # who may decide besides owners: requester, admins, anyone
 *   workspaces:
 *     "slack:T0123": { approvers: [anyone] }
 *   channels:
 *     "telegram:-1001234": { timeout: 1h, approvers: [admins] }
 * ```
 */
export interface ApprovalsConfig extends ApprovalPolicy {
  /** `platform:workspace` -> what that workspace overrides. */
  readonly workspaces: Readonly<Record<string, ApprovalOverride>>;
  /** `platform:channel` -> what that channel overrides; deeper than its workspace. */
  readonly channels: Readonly<Record<string, ApprovalOverride>>;
}

/** What a workspace or channel sets; anything unset comes from the shallower level. */
export type ApprovalOverride = Partial<ApprovalPolicy>;

export const DEFAULT_APPROVALS: ApprovalsConfig = Object.freeze({
  ...DEFAULT_APPROVAL_POLICY,
  workspaces: Object.freeze({}),
  channels: Object.freeze({}),
});

/**
 * The approval policy of a conversation: its channel's override, else its
 * workspace's, else the section's top level, field by field.
 *
 * @example
 * approvalPolicyFor(config, { platform: "slack", workspace: "T0123", channel: "C1" });
 * // { approvers: ["anyone"], timeoutMs: 900_000 }
 */
export function approvalPolicyFor(
  config: { readonly approvals: ApprovalsConfig },
  address: Pick<ConversationAddress, "platform" | "workspace" | "channel">,
): ApprovalPolicy {
  const { approvals } = config;
  const own = (map: Readonly<Record<string, ApprovalOverride>>, key: string) =>
    Object.hasOwn(map, key) ? map[key] : undefined;
  const levels = [
    own(approvals.channels, `${address.platform}:${address.channel}`),
    own(approvals.workspaces, `${address.platform}:${address.workspace}`),
  ];
  return Object.freeze({
    approvers: levels.find((l) => l?.approvers !== undefined)?.approvers ?? approvals.approvers,
    timeoutMs: levels.find((l) => l?.timeoutMs !== undefined)?.timeoutMs ?? approvals.timeoutMs,
  });
}

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Ten seconds: a shorter wait expires before anyone can read the request. */
const MIN_TIMEOUT_MS = 10 * SECOND;
/** A day: past that the conversation has moved on, and the call's answer would not fit it. */
const MAX_TIMEOUT_MS = 24 * HOUR;
const DURATION_EXAMPLE = "e.g. timeout: 15m, 90s or 1h30m";

/**
 * `15m`, `90s`, `1h30m`: hours, minutes and seconds, largest first. Written
 * here rather than shared with the reminder tools' richer reader, which
 * lives with the tools, above the pure core.
 */
const timeout = z
  .union([z.string(), z.number()], {
    error: (iss) =>
      `expected a duration such as 15m, found ${describeValue(iss.input)}. Write a number and a unit (s, m or h), ${DURATION_EXAMPLE}.`,
  })
  .transform((value, ctx) => {
    const text = String(value).trim().toLowerCase();
    const parts = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
    if (typeof value === "number" || text === "" || parts === null) {
      ctx.addIssue({
        code: "custom",
        message: `${describeValue(value)} is not a duration. Write a number and a unit (s, m or h), ${DURATION_EXAMPLE}.`,
      });
      return z.NEVER;
    }
    const [, h = "0", m = "0", s = "0"] = parts;
    const ms = Number(h) * HOUR + Number(m) * MINUTE + Number(s) * SECOND;
    if (ms < MIN_TIMEOUT_MS || ms > MAX_TIMEOUT_MS) {
      ctx.addIssue({
        code: "custom",
        message: `${describeValue(value)} is ${ms < MIN_TIMEOUT_MS ? "too short: a request needs at least 10s to be read" : "too long: at most 24h, after which the conversation has moved on"}. ${DURATION_EXAMPLE}.`,
      });
      return z.NEVER;
    }
    return ms;
  });

const RULES = APPROVER_RULES.join(", ");

const approvers = z
  .array(
    z.string({
      error: (iss) => `expected one of ${RULES}, found ${describeValue(iss.input)}.`,
    }),
    {
      error: (iss) =>
        `expected a list such as [requester, admins], found ${describeValue(iss.input)}. Approvers are ${RULES}; owners always may decide.`,
    },
  )
  .transform((list, ctx) => {
    const rules: ApproverRule[] = [];
    list.forEach((word, i) => {
      const rule = word.trim().toLowerCase();
      if (!(APPROVER_RULES as readonly string[]).includes(rule)) {
        ctx.addIssue({
          code: "custom",
          path: [i],
          message: `${describeValue(word)} is not an approver. Use ${RULES} (owners always may decide; list nothing for owners only).`,
        });
        return;
      }
      if (!rules.includes(rule as ApproverRule)) rules.push(rule as ApproverRule);
    });
    return Object.freeze(rules) as readonly ApproverRule[];
  });

const override = strictMap(
  { timeout: timeout.optional(), approvers: approvers.optional() },
  {
    takes: "A workspace or channel takes timeout: and approvers:.",
    notAMap: (found) => `expected a map such as { approvers: [anyone] }, found ${found}.`,
  },
).transform(
  (entry): ApprovalOverride =>
    Object.freeze({
      ...(entry.timeout !== undefined ? { timeoutMs: entry.timeout } : {}),
      ...(entry.approvers !== undefined ? { approvers: entry.approvers } : {}),
    }),
);

export const approvalsSection = sectionMap("approvals", {
  timeout: timeout.optional(),
  approvers: approvers.optional(),
  ...placeOverrides(override, "{ timeout:, approvers: }", { namesBadKeys: true }),
}).transform(
  (section): ApprovalsConfig =>
    Object.freeze({
      timeoutMs: section.timeout ?? DEFAULT_APPROVALS.timeoutMs,
      approvers: section.approvers ?? DEFAULT_APPROVALS.approvers,
      workspaces: Object.freeze({ ...section.workspaces }),
      channels: Object.freeze({ ...section.channels }),
    }),
);
