export {
  type AccessEntry,
  type AccessEntryKind,
  entriesMatch,
  formatAccessEntry,
  parseAccessEntry,
} from "./access-entry.ts";
export {
  type AccessConfig,
  type AccessPolicy,
  accessPolicyFor,
  DEFAULT_ACCESS,
  type DmPolicy,
  type GroupPolicy,
} from "./access-section.ts";
export {
  type ApprovalOverride,
  type ApprovalsConfig,
  approvalPolicyFor,
  DEFAULT_APPROVALS,
} from "./approvals-section.ts";
export { type AttachmentsConfig, DEFAULT_ATTACHMENTS } from "./attachments-section.ts";
export { botModelOf, FALLBACK_MODEL } from "./bot-model.ts";
export {
  type BudgetsConfig,
  DEFAULT_BUDGETS,
  parseTokenBudget,
} from "./budgets-section.ts";
export {
  bindHostProblem,
  CONSOLE_DEFAULT_HOST,
  type ConsoleConfig,
  DEFAULT_CONSOLE,
} from "./console-section.ts";
export { ConfigError, type ConfigWarning } from "./errors.ts";
export { type HooksConfig, NO_HOOKS } from "./hooks-section.ts";
export { globalLayer } from "./layer.ts";
export {
  DEFAULT_LIMITS,
  LIMIT_NAMES,
  type LimitName,
  type LimitsConfig,
  limitsFor,
} from "./limits-section.ts";
export {
  type ConfigReader,
  type ConfigReading,
  type ConfigReload,
  configReader,
} from "./load.ts";
export { DEFAULT_MCP, type McpConfig, type McpServerConfig } from "./mcp-section.ts";
export { DEFAULT_MEMORY, type MemoryConfig } from "./memory-section.ts";
export {
  type CacheTtlSetting,
  checkModelLimit,
  DEFAULT_MODEL_LIMITS,
  DEFAULT_MODEL_SECTION,
  MODEL_LIMIT_NAMES,
  MODEL_LIMIT_RULES,
  type ModelLimits,
  type ModelProviderName,
  type ModelSection,
} from "./model-section.ts";
export {
  DEFAULT_MODELS,
  findModel,
  type ModelEntry,
  type ModelPrice,
  type ModelsConfig,
  modelFor,
} from "./models-section.ts";
export { DEFAULT_PERMISSIONS, type PermissionsConfig } from "./permissions-section.ts";
export {
  MAX_PERSONA_BYTES,
  type PersonaChoice,
  type PersonaConfig,
  personaChoiceFor,
} from "./persona-section.ts";
export type {
  PlatformConfigs,
  PlatformName,
  PlatformSection,
  PlatformSections,
} from "./platform-section.ts";
export { NO_PLUGINS, type PluginsConfig } from "./plugins-section.ts";
export {
  DEFAULT_QUEUE,
  MAX_SHARDS,
  type QueueConfig,
  queueBehaviourFor,
} from "./queue-section.ts";
export { describeRate, parseRate, type Rate } from "./rate-spec.ts";
export {
  formatRedisAddress,
  parseRedisAddress,
  parseRedisAddressList,
  type RedisAddress,
  RedisAddressError,
} from "./redis-address.ts";
export { DEFAULT_REDIS, type RedisConfig } from "./redis-section.ts";
export { DEFAULT_REMINDERS, type RemindersConfig } from "./reminders-section.ts";
export { NO_SCHEDULES, type SchedulesConfig } from "./schedules-section.ts";
export { type ConfigFormat, defineConfigFormat, type SwitchyardConfig } from "./schema.ts";
export { configTooLarge, MAX_CONFIG_BYTES } from "./size.ts";
export { NO_SKILL_FOLDERS, type SkillFolders } from "./skill-folders-section.ts";
export { DEFAULT_TELEMETRY, type TelemetryConfig } from "./telemetry-section.ts";
export { DEFAULT_TRANSCRIPTION, type TranscriptionConfig } from "./transcription-section.ts";
export { DEFAULT_WEB, type WebConfig } from "./web-section.ts";
