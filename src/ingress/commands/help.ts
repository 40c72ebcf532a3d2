import type { CommandPolicy } from "../../core/commands/index.ts";
import { listView } from "../../core/commands/index.ts";
import { freezeConversation } from "../../turn/contract.ts";
import { type ChatCommand, type CommandCall, mayUse } from "./registry.ts";

/**
 * `/help` (Telegram's `/start` too): the commands this person may use here,
 * the tools count and load mode, and who the admins are.
 */
export const helpCommand: ChatCommand = {
  name: "help",
  audience: "anyone",
  help: [{ usage: "/help", summary: "This list.", audience: "anyone" }],
  run: async (call) => ({ kind: "reply", text: await helpText(call) }),
};

/** The `/help` text for one person in one conversation. */
export async function helpText({ where, actor, ctx, commands }: CommandCall): Promise<string> {
  const lines = ["Commands you can use here:"];
  for (const command of commands) {
    if (!mayUse(actor, command.audience, ctx.policy)) continue;
    for (const line of command.help) {
      if (mayUse(actor, line.audience, ctx.policy)) lines.push(`${line.usage} - ${line.summary}`);
    }
  }
  const contract = await freezeConversation(ctx.sources, where);
  lines.push(
    "",
    `Tools: ${listView(contract).title}, load mode ${contract.mode}.`,
    adminsLine(ctx.policy, where.platform),
  );
  return lines.join("\n");
}

/** Who to ask: the config's owners and admins on this platform, else the workspace's own admins. */
function adminsLine(policy: CommandPolicy, platform: string): string {
  const here = (ids: readonly string[]) => ids.filter((id) => id.startsWith(`${platform}:`));
  const people = [...new Set([...here(policy.owners), ...here(policy.admins)])];
  return people.length === 0
    ? "For changes only admins can make, ask an admin of this workspace."
    : `For changes only admins can make, ask: ${people.join(", ")}.`;
}
