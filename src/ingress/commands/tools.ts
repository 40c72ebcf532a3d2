import type { ChatCommand } from "./registry.ts";
import { handleToolsCommand } from "./tools-command.ts";

/** `/tools`: the tools here, and switching them per scope (the grammar is `/tools help`'s). */
export const toolsCommand: ChatCommand = {
  name: "tools",
  audience: "anyone",
  help: [
    {
      usage: "/tools",
      summary: "The tools I have here, and what each is doing.",
      audience: "anyone",
    },
    {
      usage: "/tools on|off|ask <tool> [scope]",
      summary: "Switches a tool, or makes it ask first; /tools help has the rest.",
      audience: "anyone",
    },
  ],
  async run({ line, where, actor, ctx }) {
    const result = await handleToolsCommand(line, where, actor, ctx.policy, ctx.sources);
    return { kind: "reply", text: result.text };
  },
};
