/**
 * Switchyard's public API: define tools, run the pipeline, and the pure core
 * for those who embed it.
 *
 * @example
 * import { defineTool, startSwitchyard, ToolRegistry } from "switchyard";
 * import { z } from "zod";
 *
 * const weather = defineTool({
 *   id: "weather",
 *   description: "Current weather for a city.",
 *   parameters: z.object({ city: z.string() }),
 *   capability: "weather_api",
 *   execute: async ({ city }) => fetchWeather(city),
 * });
 */
export { type Switchyard, type SwitchyardOptions, startSwitchyard } from "./app.ts";
export { tokenBudgetCheck } from "./channels/token-budget.ts";
export type { Checkpoint } from "./core/agent/checkpoint.ts";
export type { Attachment, ConversationAddress, InboundMessage } from "./core/agent/inbound.ts";
export type { ChatMessage, ToolCall, Usage } from "./core/agent/messages.ts";
export {
  type Provider,
  ProviderError,
  type ProviderRequest,
  type ProviderResponse,
} from "./core/agent/provider.ts";
export { type Tombstone, tombstoneFor } from "./core/agent/tombstone.ts";
export type { Capabilities, CapabilityStatus } from "./core/availability/capabilities.ts";
export { EMPTY_INTENT, type Intent, type IntentChange } from "./core/availability/intent.ts";
export { explain, resolveAvailability } from "./core/availability/resolve.ts";
export { parseRuntimeSpec, RuntimeSpecError } from "./core/availability/runtime-spec.ts";
export type { ScopeLayer, ScopeName, ScopeStack } from "./core/availability/scopes.ts";
export { ConfigError, parseConfig, type SwitchyardConfig } from "./core/config/index.ts";
export { appendLoaded, freezeTurn, type TurnContract } from "./core/loading/freeze.ts";
export { type LoadMode, parseLoadMode, UnknownModeError } from "./core/loading/modes.ts";
export { ToolRegistry } from "./core/tools/registry.ts";
export {
  type AnyTool,
  defineJsonSchemaTool,
  defineTool,
  type Tool,
  type ToolContext,
} from "./core/tools/tool.ts";
export { defineToolsets, type ToolsetDef } from "./core/tools/toolsets.ts";
export {
  type AdmitCheck,
  firstRefusal,
  type MessageSubject,
  type Refusal,
} from "./ports/admission.ts";
export type { DeliveryTarget, Outbound } from "./ports/outbound.ts";
export { createOpenAIProvider } from "./providers/openai.ts";
export {
  type ConnectionRole,
  connectRedis,
  describeTopology,
  RedisFactory,
  type RedisTopology,
  topologyFrom,
} from "./runtime/redis.ts";
