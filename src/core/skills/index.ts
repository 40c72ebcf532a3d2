/**
 * Skills: SKILL.md folders the bot can use, switched per scope like tools.
 * Pure: the loader (`src/runtime/skill-folders.ts`) reads the folders and hands the
 * sources in; the store hands in the toggles.
 *
 * @example
 * const resolution = resolveSkills(library.sourcesFor(address), toggles, { warnings });
 * const prompt = buildSystemPrompt({ persona, catalog, blocks: [skillsBlock(resolution.enabled)] });
 * // the resident tool: defineSkillTool((ctx) => resolutionFor(ctx))
 * // /skills:  planSkillsText(text, { actor, policy, resolution })
 * // /skill:   planSkillInvocation(text, resolution)
 */

export {
  DEFAULT_SKILL_SCOPE,
  formatSkillsCommand,
  isSkillScope,
  parseSkillInvocation,
  parseSkillsCommand,
  type SkillInvocation,
  type SkillsCommand,
  SkillsCommandError,
} from "../commands/skills-parse.ts";
export {
  planSkillsCommand,
  planSkillsText,
  type SkillsPlan,
  type SkillsPlanContext,
  type SkillToggleChange,
  skillPermission,
} from "../commands/skills-plan.ts";
export {
  INVOKE_USAGE,
  SKILLS_USAGE,
  SKILLS_VERBS,
  type SkillsVerb,
} from "../commands/skills-usage.ts";
export {
  renderSkillsText,
  type SkillHelpView,
  type SkillItem,
  type SkillListView,
  type SkillsView,
  type SkillWhyLine,
  type SkillWhyView,
  skillHelpView,
  skillListView,
  skillWhyView,
} from "../commands/skills-view.ts";
export {
  deciderPhrase,
  disabledMessage,
  filesLine,
  lookupSkill,
  type SkillLookup,
  skillInvocationText,
  skillToolAnswer,
  skillToolResult,
  unknownSkillMessage,
} from "./answers.ts";
export {
  SKILLS_BLOCK_HEADER,
  type SkillLine,
  type SkillsBlockCost,
  SUMMARY_MAX,
  skillSummary,
  skillsBlock,
  skillsBlockCost,
} from "./block.ts";
export {
  defineSkill,
  INLINE_ORIGIN,
  isInlineSkill,
  type SkillDefinition,
  SkillDefinitionError,
} from "./define-skill.ts";
export { planSkillInvocation, type SkillInvocationPlan } from "./invocation.ts";
export { reloadReply } from "./reload-reply.ts";
export {
  describeShadowing,
  findSkill,
  type ResolvedSkill,
  resolveSkills,
  SKILL_SCOPES,
  type SkillDecider,
  type SkillLayer,
  type SkillPolicy,
  type SkillResolution,
  type SkillScope,
  type SkillState,
  type SkillToggleStack,
  type SkillToggles,
  type ToggleLayer,
} from "./resolve.ts";
export {
  BUILTIN_ORIGIN,
  describeSkillSource,
  isSkillName,
  SKILL_SOURCES,
  type Skill,
  type SkillDocument,
  type SkillSource,
  type SkillSourceKind,
  skillKey,
  sourceLabel,
} from "./skill.ts";
export { MAX_DESCRIPTION, parseSkillFile, SkillFileError } from "./skill-file.ts";
export { defineSkillTool, SKILL_TOOL_ID, skillToolParameters } from "./skill-tool.ts";
