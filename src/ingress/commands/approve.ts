import type { Choice } from "../../core/approvals/approval.ts";
import {
  type ApprovalControl,
  approvalPayload,
  parseApprovalPayload,
} from "../../ports/approvals.ts";
import { APPROVAL_REPLIES, decisionFailed } from "../approval-click.ts";
import type { ChatCommand, CommandCall } from "./registry.ts";

/**
 * `/approve <id> [conversation]` and `/deny <id>`: the typed twin of an
 * approval request's buttons, in every channel (the only way in the
 * terminal, where there are no buttons). They call the same approvals desk
 * a click does, so who may decide, "first decision wins" and the answers
 * are the same; only the desk decides who may, so anyone may type them.
 */

const APPROVE_USAGE = "/approve <id> [conversation]";
const DENY_USAGE = "/deny <id>";

/** The word that makes `/approve` "approve for this conversation". */
const CONVERSATION_WORD = "conversation";

/**
 * The typed command a request's control stands for, as the terminal shows
 * it: `/approve k3j9x0a1b2c4`, `/approve k3j9x0a1b2c4 conversation`,
 * `/deny k3j9x0a1b2c4`. Undefined for "show", which has no typed form.
 */
export function typedApproval(id: string, control: ApprovalControl): string | undefined {
  switch (control) {
    case "approve":
      return `/approve ${id}`;
    case "approve_conversation":
      return `/approve ${id} ${CONVERSATION_WORD}`;
    case "deny":
      return `/deny ${id}`;
    case "show":
      return undefined;
  }
}

export const approveCommand: ChatCommand = {
  name: "approve",
  audience: "anyone",
  help: [
    {
      usage: APPROVE_USAGE,
      summary:
        "Lets a tool call that waits for approval run; with conversation, the tool stays on here.",
      audience: "anyone",
    },
  ],
  run: (call) => decide(call, "approve"),
};

export const denyCommand: ChatCommand = {
  name: "deny",
  audience: "anyone",
  help: [
    {
      usage: DENY_USAGE,
      summary: "Refuses a tool call that waits for approval.",
      audience: "anyone",
    },
  ],
  run: (call) => decide(call, "deny"),
};

async function decide(
  { args, where, actor, name, ctx }: CommandCall,
  verb: "approve" | "deny",
): Promise<{ kind: "reply"; text: string }> {
  const usage = verb === "approve" ? APPROVE_USAGE : DENY_USAGE;
  const words = args.split(/\s+/).filter((w) => w !== "");
  const [id = "", scope, ...extra] = words;
  const wantsConversation = scope?.toLowerCase() === CONVERSATION_WORD;
  if (id === "") {
    return {
      kind: "reply",
      text: `Which request? Usage: ${usage}, the id as the request shows it.`,
    };
  }
  if (extra.length > 0 || (scope !== undefined && (verb === "deny" || !wantsConversation))) {
    return { kind: "reply", text: `Too many words after /${verb}. Usage: ${usage}` };
  }
  const choice: Choice =
    verb === "deny" ? "deny" : wantsConversation ? "approve_conversation" : "approve";
  // The payload grammar is the one home of what an id looks like.
  const key = id.toLowerCase();
  if (parseApprovalPayload(approvalPayload(key, choice)) === undefined) {
    return {
      kind: "reply",
      text: `"${id.slice(0, 40)}" is not a request id: it is 12 letters and digits, as the request shows. Usage: ${usage}`,
    };
  }
  if (!ctx.approvals) return { kind: "reply", text: APPROVAL_REPLIES.noDesk };
  try {
    const answer = await ctx.approvals.decide({
      id: key,
      choice,
      actor,
      ...(name ? { name } : {}),
      platform: where.platform,
    });
    return { kind: "reply", text: answer.text };
  } catch (error) {
    return { kind: "reply", text: decisionFailed(error) };
  }
}
