/**
 * The channel-neutral `/tools` and `/skills` commands: parse -> plan -> view,
 * both read with one grammar (grammar.ts, scoped-verbs.ts). Pure: the shell
 * applies a planned change to the store and renders the view; a list view
 * becomes a {@link ListPanel} that every platform's list UI renders.
 *
 * @example
 * const plan = planToolsText("/tools off web_search channel", ctx);
 * if (plan.kind === "change") await store.apply(plan.scope, plan.change);
 * send(plan.kind === "reply" ? renderText(plan.view) : plan.reply);
 */
export { CommandError } from "./errors.ts";
export {
  LIST_DEFAULT_SCOPE,
  type ListName,
  type ListPanel,
  type PanelEntry,
  skillsPanel,
  toolsPanel,
} from "./panel.ts";
export { formatToolsCommand, parseToolsCommand, type ToolsCommand } from "./parse.ts";
export {
  type Actor,
  type CommandPolicy,
  checkPermission,
  DEFAULT_COMMAND_POLICY,
  type Permission,
} from "./permissions.ts";
export { type PlanContext, planToolsCommand, planToolsText, type ToolsPlan } from "./plan.ts";
export { APPLIES_NEXT } from "./replies.ts";
// The `/schedule` grammar, whole: its types, its usage lines, its parser and its error.
export * from "./schedule-parse.ts";
export {
  listLine,
  planScheduleCommand,
  planScheduleText,
  type ScheduleOrigin,
  type SchedulePlan,
  type SchedulePlanContext,
  scheduleHelp,
  timingLines,
} from "./schedule-plan.ts";
export { applyScopeChange, type ScopeChange, type SharedScope } from "./scope-change.ts";
export { TOOLS_VERBS, type ToolsVerb, USAGE } from "./usage.ts";
export {
  type HelpView,
  helpView,
  type ListView,
  listView,
  missingFamilies,
  renderText,
  type ToolItem,
  type ToolItemState,
  type ToolsView,
  type WhyLine,
  type WhyView,
  whyView,
} from "./view.ts";
