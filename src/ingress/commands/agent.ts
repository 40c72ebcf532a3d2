import {
  type AgentDefinition,
  agentsOf,
  describeAgentChoice,
  parseAgentCommand,
} from "../../core/agents/index.ts";
import { checkPermission } from "../../core/commands/index.ts";
import { conversationAgent } from "../../turn/conversation-agent.ts";
import type { ChatCommand, ChatTextOutcome } from "./registry.ts";

const reply = (text: string): ChatTextOutcome => ({ kind: "reply", text });

/**
 * `/agent`: which agent answers here and which binding decided; people who
 * may change a scope (the same rule as `/tools`) bind another agent to it
 * from the next turn, or `reset` the scope's binding. The conversation's
 * history stays its own: only who answers changes.
 */
export const agentCommand: ChatCommand = {
  name: "agent",
  audience: "anyone",
  help: [
    { usage: "/agent", summary: "Which agent answers here, and why.", audience: "anyone" },
    {
      usage: "/agent <id>|reset [conversation|channel|workspace]",
      summary: "Binds another agent here from the next turn, or drops the binding.",
      audience: "anyone",
    },
  ],
  async run({ args, where, actor, ctx }) {
    const config = ctx.sources.config();
    const agents = agentsOf(config);
    const parsed = parseAgentCommand(args, [...agents.keys()]);
    if (parsed.kind === "bad") return reply(parsed.problem);
    const settings = ctx.sources.store.settings;
    if (parsed.kind === "show") {
      const choice = conversationAgent(config, where, await settings.read(where));
      const others = [...agents.values()].filter((a) => a.id !== choice.agent.id);
      const list = others.length > 0 ? ` Other agents: ${others.map(label).join(", ")}.` : "";
      return reply(`${describeAgentChoice(choice)}${list}`);
    }
    const permission = checkPermission(actor, parsed.scope, ctx.policy);
    if (!permission.allowed) return reply(permission.reason);
    const here = `this ${parsed.scope}`;
    if (parsed.kind === "reset") {
      await settings.write(parsed.scope, where, "agent", undefined);
      const now = conversationAgent(config, where, await settings.read(where));
      return reply(
        `Dropped ${here}'s agent binding. From my next turn: ${describeAgentChoice(now)}`,
      );
    }
    await settings.write(parsed.scope, where, "agent", parsed.agent);
    const now = conversationAgent(config, where, await settings.read(where));
    const agent = agents.get(parsed.agent) as AgentDefinition;
    // A deeper binding still wins: say so rather than promise a switch that will not happen.
    return reply(
      now.agent.id === agent.id
        ? `${label(agent)} answers in ${here} from my next turn.`
        : `Bound ${label(agent)} to ${here}, but a deeper binding still picks another: ${describeAgentChoice(now)}`,
    );
  },
};

function label(agent: AgentDefinition): string {
  return agent.name === agent.id ? agent.id : `${agent.id} (${agent.name})`;
}
