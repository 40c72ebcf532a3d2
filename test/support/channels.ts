import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import type { LoggerPort } from "../../src/core/logger.ts";
import { WarnOnce } from "../../src/core/logger.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import type { AnyTool } from "../../src/core/tools/tool.ts";
import { IngressGate } from "../../src/ingress/access/gate.ts";
import type { ChannelRuntime } from "../../src/ingress/channel.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import type { Approvals } from "../../src/ports/approvals.ts";
import type { StopTurn } from "../../src/ports/turn-control.ts";
import type { SkillLibrary } from "../../src/runtime/skill-folders.ts";
import { FAKE_MODEL_ID } from "../../src/testing/fakes/openai-server.ts";
import type { ContractSources } from "../../src/turn/contract.ts";
import type { Pipeline } from "./pipeline.ts";

/**
 * What a channel's ingress gets in a test: the pipeline's queue and store, the
 * same tools its worker has, the empty config with DMs open (the product's
 * default is pairing; the access tests pass their own config), and
 * (optionally) skills.
 */
export function channelRuntime(
  pipe: Pipeline,
  tools: AnyTool[],
  options: {
    skills?: SkillLibrary;
    logger?: LoggerPort;
    /** The config the worker reads too; default: the empty one with DMs open. */
    config?: () => SwitchyardConfig;
    refused?: (reason: string) => void;
    /** `/stop`'s port; default: the pipeline's own turn signals. */
    stopTurn?: StopTurn;
    /** What `/tools` and `/model` see the host has (the worker's, e.g. a Host's); default: nothing. */
    capabilities?: ContractSources["capabilities"];
    /** The approvals desk clicks and `/approve` reach; default: the pipeline's own. */
    approvals?: Approvals;
  } = {},
): ChannelRuntime {
  const config = options.config ?? (() => OPEN_DMS);
  return {
    ungatedQueue: pipe.app.queue,
    redis: pipe.app.redis,
    sources: {
      store: pipe.app.store,
      registry: new ToolRegistry(tools),
      capabilities: options.capabilities ?? (() => ({})),
      config,
      runtime: {},
      warnings: new WarnOnce(),
      model: FAKE_MODEL_ID,
      ...(options.skills ? { skills: options.skills } : {}),
    },
    ...(options.skills ? { skills: options.skills } : {}),
    permissions: () => config().permissions,
    gate: new IngressGate({
      store: pipe.app.store,
      config,
      ...(options.refused ? { refused: options.refused } : {}),
    }),
    logger: options.logger ?? { warn: () => {} },
    stopTurn: options.stopTurn ?? ((address) => pipe.app.stopTurn(address)),
    approvals: options.approvals ?? pipe.app.approvals,
    schedules: pipe.app.scheduleDesk,
    feedback: pipe.app.feedback,
  };
}

/** The empty config, with every direct message answered: what the tests before access control assumed. */
export const OPEN_DMS: SwitchyardConfig = Object.freeze({
  ...EMPTY_CONFIG,
  access: Object.freeze({ ...EMPTY_CONFIG.access, dm: "open" as const }),
});

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
