import { scopedUsage } from "./usage.ts";

/**
 * The `/skills` grammar as people read it: one usage line per verb, quoted at
 * the end of every parse error so the fix is in the message.
 */
export const SKILLS_VERBS = ["list", "on", "off", "reset", "why", "reload", "help"] as const;
export type SkillsVerb = (typeof SKILLS_VERBS)[number];

export const SKILLS_USAGE: Readonly<Record<SkillsVerb, string>> = {
  ...scopedUsage("/skills", "skill"),
  reload: "/skills reload",
};

export const SKILLS_SUMMARY: Readonly<Record<SkillsVerb, string>> = {
  list: "List the skills and whether each is on, with where it comes from.",
  on: "Switch a skill on.",
  off: "Switch a skill off: the bot no longer sees it, and /skill <name> says who switched it off.",
  reset:
    "Forget a skill's setting so shallower scopes decide again; with no skill, or `all`, every skill setting at that scope.",
  why: "Explain which scope decides a skill's state, and which skill folder it comes from.",
  reload: "Re-read the skill folders now (they are also re-read when they change).",
  help: "Show this help, or one command's.",
};

/** Using a skill, as opposed to switching it. */
export const INVOKE_USAGE = "/skill <name> [request]";
export const INVOKE_SUMMARY =
  "Use a skill for one message: its instructions go into that answer, with your request.";

export const SKILL_SCOPE_HELP =
  "Scopes: channel (the default), workspace, global. The deepest scope that names a skill wins; a skill nobody switched is on.";
