import { z } from "zod";
import type { Capabilities } from "../../src/core/availability/capabilities.ts";
import { EMPTY_INTENT, type Intent } from "../../src/core/availability/intent.ts";
import type { ScopeStack } from "../../src/core/availability/scopes.ts";
import { freezeTurn, type TurnContract } from "../../src/core/loading/freeze.ts";
import { type LoggerPort, WarnOnce } from "../../src/core/logger.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { type AnyTool, defineTool } from "../../src/core/tools/tool.ts";
import type { Toolsets } from "../../src/core/tools/toolsets.ts";

/** What a test tool varies; everything else is a fixed, valid default. */
export interface TestToolOptions {
  readonly description?: string;
  readonly family?: string;
  readonly defer?: boolean;
  readonly capability?: string;
}

const cache = new Map<string, AnyTool>();

/**
 * A small valid tool. Defined tools are cached by their options: defining one
 * converts its zod schema, and property runs build thousands of registries.
 */
export function tool(id: string, options: TestToolOptions = {}): AnyTool {
  const cacheKey = JSON.stringify([id, options]);
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const defined = defineTool({
    id,
    description: options.description ?? `Does ${id.replaceAll("_", " ")}.`,
    parameters: z.object({ input: z.string().describe(`What ${id} works on.`) }),
    execute: () => `${id} ran`,
    ...(options.family !== undefined ? { family: options.family } : {}),
    ...(options.defer !== undefined ? { defer: options.defer } : {}),
    ...(options.capability !== undefined ? { capability: options.capability } : {}),
  });
  cache.set(cacheKey, defined);
  return defined;
}

/** An MCP tool named the way MCP bridges name them: `mcp__<server>__<name>`. */
export function mcpTool(server: string, name: string, options: TestToolOptions = {}): AnyTool {
  return tool(`mcp__${server}__${name}`, { defer: true, ...options, family: `mcp:${server}` });
}

export function registryOf(...tools: AnyTool[]): ToolRegistry {
  return new ToolRegistry(tools);
}

/** A logger that keeps what it was told, for asserting on warnings. */
export function recordingLogger(): LoggerPort & { readonly messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message) => void messages.push(message) };
}

export interface Turn {
  readonly scopes?: ScopeStack;
  readonly intent?: Intent;
  readonly capabilities?: Capabilities;
  readonly toolsets?: Toolsets;
  readonly essential?: readonly string[];
  readonly warnings?: WarnOnce;
}

/** freezeTurn with test defaults: no scopes, empty intent, no capabilities, no essential set. */
export function freeze(registry: ToolRegistry, turn: Turn = {}): TurnContract {
  return freezeTurn(
    registry,
    turn.scopes ?? {},
    turn.intent ?? EMPTY_INTENT,
    turn.capabilities ?? {},
    {
      essential: turn.essential ?? [],
      warnings: turn.warnings ?? new WarnOnce(),
      ...(turn.toolsets ? { toolsets: turn.toolsets } : {}),
    },
  );
}

/** The ids a contract enables: resident (without the discovery tool) plus deferred. */
export function enabledIds(contract: TurnContract): string[] {
  return [...contract.resolution.states.values()]
    .filter((state) => state.status === "enabled")
    .map((state) => state.id);
}
