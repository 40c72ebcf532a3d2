import type { ConversationAddress } from "../core/agent/inbound.ts";
import { type ApprovalPolicy, DEFAULT_APPROVAL_POLICY } from "../core/approvals/approval.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";

/**
 * The approval policy of a conversation: who may decide and how long a
 * request waits. The one place the worker and the desk read it, so the
 * config's `approvals:` section (per workspace and channel) plugs in here.
 * Until that section exists, every conversation has the default.
 */
export function approvalPolicyOf(
  _config: SwitchyardConfig,
  _address: ConversationAddress,
): ApprovalPolicy {
  return DEFAULT_APPROVAL_POLICY;
}
