import type { ChannelRuntime } from "../../src/channels/channel.ts";
import { EMPTY_CONFIG, type SwitchyardConfig } from "../../src/core/config/index.ts";
import type { LoggerPort } from "../../src/core/logger.ts";
import { WarnOnce } from "../../src/core/logger.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import type { AnyTool } from "../../src/core/tools/tool.ts";
import type { SkillLibrary } from "../../src/skills/loader.ts";
import type { Pipeline } from "./pipeline.ts";

/**
 * What a channel's ingress gets in a test: the pipeline's queue and store, the
 * same tools its worker has, the empty config, and (optionally) skills.
 */
export function channelRuntime(
  pipe: Pipeline,
  tools: AnyTool[],
  options: { skills?: SkillLibrary; logger?: LoggerPort; config?: () => SwitchyardConfig } = {},
): ChannelRuntime {
  return {
    queue: pipe.app.queue,
    redis: pipe.app.redis,
    sources: {
      store: pipe.app.store,
      registry: new ToolRegistry(tools),
      capabilities: () => ({}),
      config: options.config ?? (() => EMPTY_CONFIG),
      runtime: {},
      warnings: new WarnOnce(),
      ...(options.skills ? { skills: options.skills } : {}),
    },
    ...(options.skills ? { skills: options.skills } : {}),
    permissions: () => EMPTY_CONFIG.permissions,
    logger: options.logger ?? { warn: () => {} },
  };
}

/** Polls `probe` until it gives a value, or fails after `timeoutMs`. */
export async function until<T>(probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
