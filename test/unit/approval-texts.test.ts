import { describe, expect, it } from "vitest";
import { type ApprovalWait, DEFAULT_APPROVAL_POLICY } from "../../src/core/approvals/approval.ts";
import { mayDecide } from "../../src/core/approvals/approvers.ts";
import { notRunResult, outcomeText } from "../../src/core/approvals/outcome.ts";
import {
  detailsText,
  requestText,
  SHOWN_ARGUMENT_CHARS,
} from "../../src/core/approvals/request.ts";
import { DEFAULT_COMMAND_POLICY } from "../../src/core/commands/permissions.ts";

const at = Date.UTC(2026, 11, 5, 21, 30);

function waitFor(args: string, tool = "deploy"): ApprovalWait {
  return {
    id: "abcdefghijkl",
    step: 1,
    calls: [{ callId: "c1", tool, arguments: args }],
    requester: { user: "U1", name: "Alice" },
    requestedAt: at,
    expiresAt: at + 15 * 60_000,
  };
}

describe("the approval request", () => {
  it("names the tool, shows its arguments, who may decide and until when", () => {
    expect(requestText(waitFor('{ "env": "prod" }'), DEFAULT_APPROVAL_POLICY)).toBe(
      [
        "Approval needed: the bot wants to run deploy.",
        '• deploy `{"env":"prod"}`',
        "Alice (who asked), admins or the bot's owners can decide, until 21:45 UTC.",
      ].join("\n"),
    );
  });

  it("cuts long arguments and keeps the whole of them for Show arguments", () => {
    const long = JSON.stringify({ body: "x".repeat(2_000) });
    const text = requestText(waitFor(long), DEFAULT_APPROVAL_POLICY);
    expect(text.split("\n")[1]?.length).toBeLessThan(SHOWN_ARGUMENT_CHARS + 20);
    expect(text).toContain("…");
    expect(detailsText(waitFor(long))).toContain("x".repeat(2_000));
  });

  it("defuses mentions, backticks and control characters from the model", () => {
    const text = requestText(
      waitFor(JSON.stringify({ msg: "@everyone <!channel> <@U99> `rm` \u0007\u202e" })),
      DEFAULT_APPROVAL_POLICY,
    );
    expect(text).not.toMatch(/@everyone|<!channel>|<@U99>|`rm`/);
    expect(text.includes("\u0007") || text.includes("\u202e")).toBe(false);
  });
});

describe("what a decision says", () => {
  it("gives the model a result naming who decided or what happened", () => {
    const wait = waitFor("{}");
    expect(
      notRunResult(wait, { verdict: "denied", by: { user: "U1", name: "Alice" }, at }),
    ).toMatch(/^not run: Alice denied it/);
    expect(notRunResult(wait, { verdict: "expired", at })).toBe(
      "not run: nobody approved it within 15 min.",
    );
    expect(outcomeText(wait, { verdict: "approved", by: { user: "U2", name: "Bob" }, at })).toBe(
      "Approved by Bob: deploy.",
    );
  });
});

describe("who may decide", () => {
  const parties = { platform: "slack", requester: { user: "U1", name: "Alice" } };
  const policy = { ...DEFAULT_COMMAND_POLICY, owners: ["slack:U7"], admins: ["slack:U8"] };

  it("lets the requester, admins and owners decide by default, and no one else", () => {
    const may = (id: string, isPlatformAdmin = false) =>
      mayDecide({ id, isPlatformAdmin }, DEFAULT_APPROVAL_POLICY, policy, parties).allowed;
    expect(may("slack:U1")).toBe(true);
    expect(may("slack:U7")).toBe(true);
    expect(may("slack:U8")).toBe(true);
    expect(may("slack:U3", true)).toBe(true);
    expect(may("slack:U3")).toBe(false);
    expect(may("discord:U1")).toBe(false);
  });

  it("keeps owners deciding even when the policy names only the requester", () => {
    const only = { ...DEFAULT_APPROVAL_POLICY, approvers: ["requester"] as const };
    expect(
      mayDecide({ id: "slack:U7", isPlatformAdmin: false }, only, policy, parties).allowed,
    ).toBe(true);
    expect(mayDecide({ id: "slack:U8", isPlatformAdmin: true }, only, policy, parties)).toEqual({
      allowed: false,
      reason: "Only Alice (who asked) or the bot's owners can decide this request.",
    });
  });
});
