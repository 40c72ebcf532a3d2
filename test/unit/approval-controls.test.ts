import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  APPROVAL_REPLIES,
  answerApprovalClick,
  isApprovalPayload,
} from "../../src/ingress/approval-click.ts";
import { CHAT_COMMANDS, routeChatText } from "../../src/ingress/chat-commands.ts";
import type { ChatCommandContext } from "../../src/ingress/commands/registry.ts";
import { controlRows } from "../../src/platforms/discord/components.ts";
import { CONTROL_ACTION, controlBlocks } from "../../src/platforms/slack/control-blocks.ts";
import { toMrkdwn } from "../../src/platforms/slack/format.ts";
import { controlKeyboard } from "../../src/platforms/telegram/keyboards.ts";
import { typedControls } from "../../src/platforms/terminal/outbox.ts";
import {
  type ApprovalControl,
  approvalPayload,
  parseApprovalPayload,
} from "../../src/ports/approvals.ts";
import type { MessageControl } from "../../src/ports/outbound.ts";
import { MemoryApprovals } from "../support/approvals.ts";

const ID = "k3j9x0a1b2c4";
const CONTROLS: MessageControl[] = [
  { payload: approvalPayload(ID, "approve"), label: "Approve", style: "primary" },
  { payload: approvalPayload(ID, "approve_conversation"), label: "Approve for this conversation" },
  { payload: approvalPayload(ID, "deny"), label: "Deny", style: "danger" },
  { payload: approvalPayload(ID, "show"), label: "Show arguments" },
];

const requestId = fc.stringMatching(/^[a-z0-9]{12}$/);
const control = fc.constantFrom<ApprovalControl>("approve", "approve_conversation", "deny", "show");
const controls = fc.array(
  fc.record({
    payload: fc.tuple(requestId, control).map(([id, c]) => approvalPayload(id, c)),
    label: fc.string({ minLength: 1, maxLength: 120 }),
    style: fc.constantFrom<MessageControl["style"]>("primary", "danger", undefined),
  }),
  { minLength: 1, maxLength: 12 },
);

describe("approval requests' buttons on each platform", () => {
  it("in Slack: the text in a section, then one button per control whose value is its payload", () => {
    const blocks = controlBlocks(toMrkdwn('Run **send_message** with `{"to":"#ops"}`?'), CONTROLS);
    expect(blocks[0]).toEqual({
      type: "section",
      text: { type: "mrkdwn", text: 'Run *send_message* with `{"to":"#ops"}`?' },
    });
    const actions = blocks.at(-1) as { type: string; elements: Record<string, unknown>[] };
    expect(actions.type).toBe("actions");
    expect(actions.elements.map((e) => [e.action_id, e.value, e.style])).toEqual([
      ["control:0", `ap:${ID}:a`, "primary"],
      ["control:1", `ap:${ID}:c`, undefined],
      ["control:2", `ap:${ID}:d`, "danger"],
      ["control:3", `ap:${ID}:s`, undefined],
    ]);
  });

  it("never lets a request's text mention a channel or inject Slack markup", () => {
    const [section] = controlBlocks(toMrkdwn("args: <!channel> <@U0ADMIN|boss> & co"), CONTROLS);
    const text = (section as { text: { text: string } }).text.text;
    expect(text).not.toContain("<!channel>");
    expect(text).toContain("&lt;!channel&gt;");
  });

  it("in Slack, Discord and Telegram: every control's payload comes back exactly, within each platform's limits", () => {
    fc.assert(
      fc.property(controls, (cs) => {
        const blocks = controlBlocks("a request", cs);
        const buttons = (blocks.at(-1) as unknown as { elements: Record<string, unknown>[] })
          .elements;
        expect(buttons.map((b) => b.value)).toEqual(cs.map((c) => c.payload));
        const ids = buttons.map((b) => String(b.action_id));
        expect(new Set(ids).size).toBe(ids.length);
        for (const id of ids) expect(id).toMatch(CONTROL_ACTION);
        for (const b of buttons) {
          expect((b.text as { text: string }).text.length).toBeLessThanOrEqual(75);
        }

        const rows = controlRows(cs) as { type: number; components: Record<string, unknown>[] }[];
        const discord = rows.flatMap((r) => r.components);
        expect(rows.every((r) => r.type === 1 && r.components.length <= 5)).toBe(true);
        expect(discord.map((b) => b.custom_id)).toEqual(cs.map((c) => c.payload));
        for (const b of discord) expect(String(b.label).length).toBeLessThanOrEqual(80);

        const keys = controlKeyboard(cs)?.inline_keyboard.flat() ?? [];
        expect(keys.map((k) => ("callback_data" in k ? k.callback_data : ""))).toEqual(
          cs.map((c) => c.payload),
        );
        for (const k of keys) {
          expect(
            Buffer.byteLength("callback_data" in k ? (k.callback_data ?? "") : ""),
          ).toBeLessThanOrEqual(64);
        }
      }),
    );
  });

  it("in Discord: primary and danger buttons, the others secondary", () => {
    const [row] = controlRows(CONTROLS) as { components: { style: number; label: string }[] }[];
    expect(row?.components.map((b) => [b.label, b.style])).toEqual([
      ["Approve", 1],
      ["Approve for this conversation", 2],
      ["Deny", 4],
      ["Show arguments", 2],
    ]);
  });

  it("in Telegram: two keys a row, and no keyboard without controls", () => {
    expect(controlKeyboard(CONTROLS)?.inline_keyboard.map((row) => row.length)).toEqual([2, 2]);
    expect(controlKeyboard([])).toBeUndefined();
  });

  it("in the terminal: the commands to type, the control with no typed form left out", () => {
    expect(typedControls(CONTROLS)).toBe(
      `Type /approve ${ID} (Approve), /approve ${ID} conversation (Approve for this conversation) or /deny ${ID} (Deny).`,
    );
    expect(typedControls([CONTROLS[2] as MessageControl])).toBe(`Type /deny ${ID} (Deny).`);
    expect(typedControls([{ payload: "tools:off", label: "Off" }])).toBe("");
  });
});

describe("a click on an approval control", () => {
  const actor = { id: "slack:U0HUMAN", isPlatformAdmin: false };

  it("hands the decision to the desk with who clicked, and says what the desk said", async () => {
    const desk = new MemoryApprovals(new Map([[ID, "{}"]]), new Set(["slack:U0HUMAN"]));
    const reply = await answerApprovalClick(desk, {
      payload: `ap:${ID}:c`,
      actor,
      name: "Ada",
      platform: "slack",
    });
    expect(reply).toEqual({ kind: "recorded", text: "Recorded: approve_conversation." });
    expect(desk.clicks).toEqual([
      { id: ID, choice: "approve_conversation", actor, name: "Ada", platform: "slack" },
    ]);
  });

  it("shows the full arguments for the show control, deciding nothing", async () => {
    const desk = new MemoryApprovals(new Map([[ID, 'send_message {"to":"#ops"}']]));
    const reply = await answerApprovalClick(desk, {
      payload: `ap:${ID}:s`,
      actor,
      platform: "slack",
    });
    expect(reply).toEqual({ kind: "details", text: 'send_message {"to":"#ops"}' });
    expect(desk.clicks).toEqual([]);
    const gone = await answerApprovalClick(desk, {
      payload: "ap:zzzzzzzzzzzz:s",
      actor,
      platform: "slack",
    });
    expect(gone).toEqual({ kind: "unknown", text: APPROVAL_REPLIES.noDetails });
  });

  it("answers any payload without throwing, and only a well-formed one reaches the desk", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 100 }), async (payload) => {
        const desk = new MemoryApprovals();
        const reply = await answerApprovalClick(desk, { payload, actor, platform: "telegram" });
        expect(reply.text.length).toBeGreaterThan(0);
        const parsed = parseApprovalPayload(payload);
        if (parsed === undefined) {
          expect(reply).toEqual({ kind: "unknown", text: APPROVAL_REPLIES.unreadable });
          expect(desk.clicks).toEqual([]);
        }
      }),
    );
    expect(isApprovalPayload("ap:nonsense")).toBe(true);
    expect(isApprovalPayload("tools:off|channel|0|x")).toBe(false);
  });

  it("says nothing was decided when the desk fails or is missing", async () => {
    const desk = new MemoryApprovals(new Map([[ID, "{}"]]));
    desk.failWith = new Error("Connection is closed.");
    const failed = await answerApprovalClick(desk, {
      payload: `ap:${ID}:a`,
      actor,
      platform: "discord",
    });
    expect(failed.kind).toBe("failed");
    expect(failed.text).toContain("Connection is closed.");
    expect(failed.text).toContain("nothing was decided");
    const none = await answerApprovalClick(undefined, {
      payload: `ap:${ID}:a`,
      actor,
      platform: "x",
    });
    expect(none).toEqual({ kind: "unknown", text: APPROVAL_REPLIES.noDesk });
  });
});

describe("/approve and /deny", () => {
  const where = {
    platform: "console",
    workspace: "local",
    channel: "terminal",
    conversation: "main",
  };
  const actor = { id: "console-user", isPlatformAdmin: true };
  const run = (line: string, desk: MemoryApprovals | undefined) =>
    routeChatText(line, where, actor, {
      policy: { owners: [], admins: [], conversation: "anyone" },
      ...(desk ? { approvals: desk } : {}),
    } as unknown as ChatCommandContext);

  it("decide through the desk: approve, approve for the conversation, deny", async () => {
    const desk = new MemoryApprovals(
      new Map([
        ["aaaaaaaaaaaa", ""],
        ["bbbbbbbbbbbb", ""],
      ]),
    );
    expect(await run("/approve AAAAAAAAAAAA conversation", desk)).toEqual({
      kind: "reply",
      text: "Recorded: approve_conversation.",
    });
    expect(await run("!deny bbbbbbbbbbbb", desk)).toEqual({
      kind: "reply",
      text: "Recorded: deny.",
    });
    expect(await run("/approve bbbbbbbbbbbb", desk)).toEqual({
      kind: "reply",
      text: "Already decided: deny by console-user.",
    });
    expect(desk.clicks.map((c) => [c.id, c.choice, c.platform])).toEqual([
      ["aaaaaaaaaaaa", "approve_conversation", "console"],
      ["bbbbbbbbbbbb", "deny", "console"],
      ["bbbbbbbbbbbb", "approve", "console"],
    ]);
  });

  it("refuse what is not a request id or has words too many, deciding nothing", async () => {
    const desk = new MemoryApprovals();
    const said = async (line: string) => (await run(line, desk)).text;
    expect(await said("/approve")).toMatch(
      /^Which request\? Usage: \/approve <id> \[conversation\]/,
    );
    expect(await said("/approve abc")).toMatch(/^"abc" is not a request id/);
    expect(await said("/deny aaaaaaaaaaaa conversation")).toMatch(/^Too many words after \/deny/);
    expect(await said("/approve aaaaaaaaaaaa channel")).toMatch(/^Too many words/);
    expect(desk.clicks).toEqual([]);
    expect(await said("/approve aaaaaaaaaaaa")).toBe("No such request.");
    expect((await run("/approve aaaaaaaaaaaa", undefined)).text).toBe(APPROVAL_REPLIES.noDesk);
  });

  it("are in every channel's commands, after /stop", () => {
    const names = CHAT_COMMANDS.map((c) => c.name);
    expect(names.slice(names.indexOf("stop"), names.indexOf("stop") + 3)).toEqual([
      "stop",
      "approve",
      "deny",
    ]);
  });
});
