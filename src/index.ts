/**
 * Switchyard's public API: build a bot from parts with `createBot` (your
 * tools, skills, persona, config and channels beside the built-ins), or
 * embed the pipeline (`startSwitchyard`) and the pure core.
 *
 * A platform of your own, the fourth beside Slack, Discord and Telegram, is
 * written against these exports alone:
 *
 * - `defineChannel({ platform, settings, outbound, directory, ingress })`
 *   makes its factory. `outbound` (the `Outbound` port: post, edit,
 *   typing, `maxLength`, `canEdit`) and `directory` are all a worker-only
 *   process builds; `ingress` is built when the channel starts, with the
 *   `ChannelRuntime` the bot hands every channel.
 * - Ingress turns each platform event into an `InboundMessage` (the same
 *   `eventId` for a redelivery of the same event) and calls
 *   `takeMessage(runtime, message, { actor, reply })`: the access gate,
 *   `/tools`, `/skills` and the other commands with their permission
 *   checks (`Actor`), the limits and the queue, in that order.
 * - The worker splits answers to `maxLength`, streams by `edit` when
 *   `canEdit`, and passes every `post` an idempotency key to land once.
 *
 * test/contract/memory-channel.ts is a complete platform written this way,
 * and test/contract/ runs it through the contract tests the three platforms
 * pass: answered once under replays, commands answered, permission checks,
 * splitting, streaming edits.
 *
 * @example
 * import { createBot, defineTool, toolResult } from "switchyard";
 * import { z } from "zod";
 *
 * const weather = defineTool({
 *   id: "weather",
 *   description: "Current weather for a city.",
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * });
 *
 * // A tool may hand back files too: they are sent after the answer's text, once.
 * const forecast = defineTool({
 *   id: "forecast_chart",
 *   description: "A chart of the week's forecast for a city, as a PNG.",
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) =>
 *     toolResult(`The chart of ${city}'s week is attached.`, [
 *       { name: "forecast.png", bytes: await drawForecast(city) },
 *     ]),
 * });
 *
 * // The console on stdin and stdout; pass channels: [slackChannel({...})] for Slack.
 * const bot = createBot({ tools: [weather, forecast], persona: "You are Ada, a weather helper." });
 * await bot.start();
 */

export type { Checkpoint } from "./core/agent/checkpoint.ts";
export type { ChatMessage, ProviderBlock, ToolCall, Usage } from "./core/agent/messages.ts";
export { DEFAULT_PERSONA } from "./core/agent/prompt.ts";
export {
  type Provider,
  ProviderError,
  type ProviderRequest,
  type ProviderResponse,
} from "./core/agent/provider.ts";
export { type Tombstone, tombstoneFor } from "./core/agent/tombstone.ts";
export {
  type AgentBinding,
  type AgentChoice,
  type AgentDefinition,
  DEFAULT_AGENT,
  resolveAgent,
} from "./core/agents/index.ts";
export type { Capabilities, CapabilityStatus } from "./core/availability/capabilities.ts";
export { EMPTY_INTENT, type Intent, type IntentChange } from "./core/availability/intent.ts";
export { explain, resolveAvailability } from "./core/availability/resolve.ts";
export { parseRuntimeSpec, RuntimeSpecError } from "./core/availability/runtime-spec.ts";
export type { ScopeLayer, ScopeName, ScopeStack } from "./core/availability/scopes.ts";
export type { Actor, CommandPolicy } from "./core/commands/index.ts";
export {
  ConfigError,
  type PersonaChoice,
  type PersonaConfig,
  type SwitchyardConfig,
} from "./core/config/index.ts";
export type { Attachment, ConversationAddress, InboundMessage } from "./core/conversation.ts";
export {
  type Activity,
  activityPhrase,
  lineText,
  statusText,
} from "./core/delivery/activity.ts";
export {
  type Hook,
  type SignatureScheme,
  signGitHub,
  signHook,
  verifyHookSignature,
} from "./core/hooks/index.ts";
export { appendLoaded, freezeTurn, type TurnContract } from "./core/loading/freeze.ts";
export { type LoadMode, parseLoadMode, UnknownModeError } from "./core/loading/modes.ts";
export type { LoggerPort } from "./core/logger.ts";
export {
  defineSkill,
  type Skill,
  type SkillDefinition,
  SkillDefinitionError,
} from "./core/skills/index.ts";
export { DuplicateToolError, ToolDefinitionError } from "./core/tools/errors.ts";
export { ToolRegistry } from "./core/tools/registry.ts";
export {
  type AnyTool,
  defineJsonSchemaTool,
  defineTool,
  type Tool,
  type ToolContext,
  type ToolOutput,
} from "./core/tools/tool.ts";
export {
  type ToolFile,
  type ToolResult,
  ToolResultError,
  toolResult,
} from "./core/tools/tool-result.ts";
export { defineToolsets, type ToolsetDef, type Toolsets } from "./core/tools/toolsets.ts";
export type { GateVerdict, IngressGate } from "./ingress/access/gate.ts";
export { tokenBudgetCheck } from "./ingress/access/token-budget.ts";
export {
  type Channel,
  type ChannelRuntime,
  ChannelRuntimeError,
  type WorkerParts,
} from "./ingress/channel.ts";
export {
  type MessageOrigin,
  type MessagePath,
  type RoutedMessage,
  type TakenAs,
  takeMessage,
} from "./ingress/take-message.ts";
export {
  createLogger,
  type Logger,
  type LoggerOptions,
  loggerPort,
} from "./observability/logger.ts";
export { Metrics } from "./observability/metrics.ts";
export {
  type ConnectionRole,
  connectRedis,
  describeTopology,
  RedisFactory,
  type RedisTopology,
  topologyFrom,
} from "./ops/redis/redis.ts";
export { EMPTY_CONFIG, parseConfig } from "./platforms/config.ts";
export {
  type ChannelDefinition,
  ChannelDefinitionError,
  type ChannelFactory,
  type ChannelIngress,
  defineChannel,
  type IngressParts,
} from "./platforms/define-channel.ts";
export type { DiscordChannelOptions } from "./platforms/discord/settings.ts";
export { discordChannel, slackChannel, telegramChannel } from "./platforms/factories.ts";
export type { SlackChannelOptions } from "./platforms/slack/settings.ts";
export type { TelegramChannelOptions } from "./platforms/telegram/settings.ts";
export {
  ConsoleChannel,
  type ConsoleChannelOptions,
  consoleChannel,
} from "./platforms/terminal/console-channel.ts";
export {
  type AdmitCheck,
  firstRefusal,
  type MessageSubject,
  type Refusal,
} from "./ports/admission.ts";
export type { ConversationDirectory, DirectoryEntry, PostPermission } from "./ports/directory.ts";
export { type Enqueue, InboundMessageError } from "./ports/enqueue.ts";
export { type FileLocation, type FileSource, FileSourceError } from "./ports/file-source.ts";
export type {
  DeliveryOptions,
  DeliveryTarget,
  DirectPerson,
  Outbound,
  PostOptions,
} from "./ports/outbound.ts";
export type { Outbox, OutboxEntry } from "./ports/outbox.ts";
export { TargetGoneError } from "./ports/target-gone.ts";
export type { StopTurn } from "./ports/turn-control.ts";
export {
  createOpenAIProvider,
  createOpenAIProvider as openAIProvider,
  type OpenAIProviderOptions,
} from "./providers/openai.ts";
export { type Switchyard, type SwitchyardOptions, startSwitchyard } from "./runtime/app.ts";
export { LiveConfig } from "./runtime/config-file.ts";
export { type Bot, createBot } from "./runtime/create-bot.ts";
export { StartOptionError } from "./runtime/errors.ts";
export { Host, type HostOptions } from "./runtime/host.ts";
export type { BotOptions, BotRole, ConfigSource, TurnTuning } from "./runtime/options.ts";
export { definePlugin, type SwitchyardPlugin } from "./runtime/plugins.ts";
export {
  loadSkills,
  SkillLibrary,
  type SkillLibraryOptions,
  watchSkills,
} from "./runtime/skill-folders.ts";
export {
  ALL_BUILTINS,
  type BuiltinContext,
  type BuiltinTools,
  builtins,
} from "./tools/builtins.ts";
export { McpHub, type McpHubOptions } from "./tools/mcp/index.ts";
export type { ContractSources, SkillSources } from "./turn/contract.ts";
