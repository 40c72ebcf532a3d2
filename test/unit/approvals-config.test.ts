import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_APPROVAL_POLICY } from "../../src/core/approvals/approval.ts";
import { approvalPolicyFor } from "../../src/core/config/approvals-section.ts";
import { ConfigError } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";

const FILE = "switchyard.yaml";

function errorOf(text: string): string {
  try {
    parseConfig(text, FILE);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`the config was accepted:\n${text}`);
}

const EXAMPLE = `approvals:
  timeout: 15m
  approvers: [requester, admins]
  workspaces:
    "slack:T0123": { approvers: [anyone] }
  channels:
    "telegram:-1001234": { timeout: 1h, approvers: [admins] }
`;

const where = (platform: string, workspace: string, channel: string) => ({
  platform,
  workspace,
  channel,
});

describe("the approvals: config section", () => {
  it("defaults to the requester and admins, fifteen minutes, when the file says nothing", () => {
    const config = parseConfig("tools: {}\n", FILE);
    expect(approvalPolicyFor(config, where("slack", "T1", "C1"))).toEqual(DEFAULT_APPROVAL_POLICY);
  });

  it("reads the documented example, and the deepest level decides each field", () => {
    const config = parseConfig(EXAMPLE, FILE);
    // A channel nobody named: the top level.
    expect(approvalPolicyFor(config, where("slack", "T9", "C9"))).toEqual({
      approvers: ["requester", "admins"],
      timeoutMs: 15 * 60_000,
    });
    // The workspace overrides approvers only; the timeout still comes from the top.
    expect(approvalPolicyFor(config, where("slack", "T0123", "C1"))).toEqual({
      approvers: ["anyone"],
      timeoutMs: 15 * 60_000,
    });
    // The channel overrides both.
    expect(approvalPolicyFor(config, where("telegram", "-1001234", "-1001234"))).toEqual({
      approvers: ["admins"],
      timeoutMs: 60 * 60_000,
    });
    // Same ids on another platform are another workspace.
    expect(approvalPolicyFor(config, where("discord", "T0123", "C1")).approvers).toEqual([
      "requester",
      "admins",
    ]);
  });

  it("reads durations in hours, minutes and seconds, and an empty approvers list as owners only", () => {
    const config = parseConfig("approvals:\n  timeout: 1h30m\n  approvers: []\n", FILE);
    expect(approvalPolicyFor(config, where("slack", "T", "C"))).toEqual({
      approvers: [],
      timeoutMs: 90 * 60_000,
    });
  });

  it("names the offending value and the fix", () => {
    expect(errorOf("approvals:\n  timeout: 15\n")).toBe(
      `${FILE}:2: approvals.timeout: 15 is not a duration. Write a number and a unit (s, m or h), e.g. timeout: 15m, 90s or 1h30m.`,
    );
    expect(errorOf("approvals:\n  timeout: 2s\n")).toContain(
      'approvals.timeout: "2s" is too short: a request needs at least 10s to be read.',
    );
    expect(errorOf("approvals:\n  timeout: 48h\n")).toContain(
      'approvals.timeout: "48h" is too long: at most 24h',
    );
    expect(errorOf("approvals:\n  approvers: [requester, owner]\n")).toBe(
      `${FILE}:2: approvals.approvers[1]: "owner" is not an approver. Use requester, admins, anyone (owners always may decide; list nothing for owners only).`,
    );
    expect(errorOf("approvals:\n  approvers: anyone\n")).toContain(
      "approvals.approvers: expected a list such as [requester, admins]",
    );
    expect(errorOf('approvals:\n  channels:\n    "slack:C1": { timout: 5m }\n')).toContain(
      'unknown key "timout". A workspace or channel takes timeout: and approvers:.',
    );
    expect(errorOf("approvals:\n  channels:\n    C1: { timeout: 5m }\n")).toContain(
      'a channel is written platform:id, e.g. "slack:T0123".',
    );
    expect(errorOf("approvals:\n  wait: 5m\n")).toContain(
      'unknown key "wait". The approvals section takes timeout:, approvers:, workspaces: and channels:.',
    );
  });

  it("property: a channel's field wins over its workspace's, which wins over the top level", () => {
    const rules = fc.subarray(["requester", "admins", "anyone"] as const);
    const minutes = fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined });
    const level = fc.record({ approvers: fc.option(rules, { nil: undefined }), minutes });
    fc.assert(
      fc.property(rules, fc.integer({ min: 1, max: 600 }), level, level, (top, topMin, ws, ch) => {
        const entry = (l: typeof ws) =>
          `{ ${[
            l.approvers ? `approvers: [${l.approvers.join(", ")}]` : "",
            l.minutes ? `timeout: ${l.minutes}m` : "",
          ]
            .filter((x) => x !== "")
            .join(", ")} }`;
        const text = `approvals:\n  timeout: ${topMin}m\n  approvers: [${top.join(", ")}]\n  workspaces:\n    "slack:W": ${entry(ws)}\n  channels:\n    "slack:C": ${entry(ch)}\n`;
        const policy = approvalPolicyFor(parseConfig(text, FILE), where("slack", "W", "C"));
        expect(policy.approvers).toEqual(ch.approvers ?? ws.approvers ?? top);
        expect(policy.timeoutMs).toBe((ch.minutes ?? ws.minutes ?? topMin) * 60_000);
      }),
      { numRuns: 100 },
    );
  });
});
