import type { ApprovalPolicy } from "../core/approvals/approval.ts";
import { approvalPolicyFor, type SwitchyardConfig } from "../core/config/index.ts";
import type { ConversationAddress } from "../core/conversation.ts";

/**
 * The approval policy of a conversation: who may decide and how long a
 * request waits, from the config's `approvals:` section (its channel's,
 * else its workspace's, else the section's own). The one place the worker
 * and the desk read it.
 */
export function approvalPolicyOf(
  config: SwitchyardConfig,
  address: ConversationAddress,
): ApprovalPolicy {
  return approvalPolicyFor(config, address);
}
