import type { ChatCommand } from "./registry.ts";
import { handleSkillsCommand, planSkillCommand } from "./skills-command.ts";

/** `/skills`: the skills here, and switching them per scope. */
export const skillsCommand: ChatCommand = {
  name: "skills",
  audience: "anyone",
  help: [
    {
      usage: "/skills",
      summary: "My skills here; /skills help has the switches.",
      audience: "anyone",
    },
  ],
  async run({ line, where, actor, ctx }) {
    const reply = await handleSkillsCommand(
      line,
      where,
      actor,
      ctx.policy,
      ctx.sources,
      ctx.skills,
    );
    return { kind: "reply", text: reply.text };
  },
};

/** `/skill <name> [request]`: the skill's instructions and the request go to the model. */
export const skillCommand: ChatCommand = {
  name: "skill",
  audience: "anyone",
  help: [
    {
      usage: "/skill <name> [request]",
      summary: "Uses a skill for one message.",
      audience: "anyone",
    },
  ],
  async run({ line, where, ctx }) {
    const plan = await planSkillCommand(line, where, ctx.sources);
    return plan.kind === "refused"
      ? { kind: "reply", text: plan.reply }
      : { kind: "message", text: plan.text };
  },
};
