import type { z } from "zod";
import type { AgentsConfig } from "./agents-section.ts";
import { DEFAULT_AGENT } from "./agents-section.ts";
import { accountBindings, type BindingsConfig } from "./bindings-section.ts";
import { describeValue } from "./errors.ts";
import type { ModelsConfig } from "./models-section.ts";

/** What {@link checkAgents} reads of the whole file. */
interface AgentsAndNeighbours {
  /** The top-level `agent:` section: the `default` agent's `delegates:`. */
  readonly agent: { readonly delegates?: readonly string[] };
  readonly agents: AgentsConfig;
  readonly bindings: BindingsConfig;
  readonly toolsets: Readonly<Record<string, unknown>>;
  readonly models: ModelsConfig;
}

/**
 * What an agent names must exist elsewhere in the file: its toolset in
 * `toolsets:`, its models in `models.list`, the agents its `delegates:`
 * name (the top-level `agent:` section's too, for `default`), and every
 * binding's agent in `agents:` (or `default`). A typo is a
 * load error, never a silent fallback.
 */
export function checkAgents(config: AgentsAndNeighbours, ctx: z.RefinementCtx): void {
  const modelNames = new Set(config.models.list.map((m) => m.name));
  const known = (model: string) =>
    modelNames.size === 0
      ? `${describeValue(model)} is not in models.list, which is empty. List it there (models: list: - name: ${model}).`
      : `${describeValue(model)} is not in models.list. Use one of: ${[...modelNames].sort().join(", ")}.`;
  config.agents.forEach((agent, index) => {
    if (agent.toolset !== undefined && !Object.hasOwn(config.toolsets, agent.toolset)) {
      ctx.addIssue({
        code: "custom",
        path: ["agents", index, "toolset"],
        message: `${describeValue(agent.toolset)} is not a defined toolset. Define toolsets.${agent.toolset}, or use one of: ${Object.keys(config.toolsets).sort().join(", ")}.`,
      });
    }
    if (agent.model !== undefined && !modelNames.has(agent.model)) {
      ctx.addIssue({
        code: "custom",
        path: ["agents", index, "model"],
        message: known(agent.model),
      });
    }
    (agent.fallback ?? []).forEach((model, at) => {
      if (modelNames.has(model)) return;
      ctx.addIssue({
        code: "custom",
        path: ["agents", index, "fallback", at],
        message: known(model),
      });
    });
  });
  const ids = new Set([DEFAULT_AGENT, ...config.agents.map((a) => a.id)]);
  for (const binding of accountBindings(config)) {
    if (ids.has(binding.agent)) continue;
    const platform = binding.target.slice(0, binding.target.indexOf(":"));
    ctx.addIssue({
      code: "custom",
      path: [platform, "accounts"],
      message: `account ${binding.target.slice(platform.length + 1)} answers as ${describeValue(binding.agent)}, which is not an agent. Use one of: ${[...ids].sort().join(", ")}.`,
    });
  }
  const delegators: [readonly string[] | undefined, (string | number)[]][] = [
    [config.agent.delegates, ["agent"]],
    ...config.agents.map((a, index): [readonly string[] | undefined, (string | number)[]] => [
      a.delegates,
      ["agents", index],
    ]),
  ];
  for (const [delegates, path] of delegators) {
    for (const [at, id] of (delegates ?? []).entries()) {
      if (ids.has(id)) continue;
      ctx.addIssue({
        code: "custom",
        path: [...path, "delegates", at],
        message: `${describeValue(id)} is not an agent. Use one of: ${[...ids].sort().join(", ")}.`,
      });
    }
  }
  config.bindings.forEach((binding, index) => {
    if (ids.has(binding.agent)) return;
    ctx.addIssue({
      code: "custom",
      path: ["bindings", index, "agent"],
      message: `${describeValue(binding.agent)} is not an agent. Use one of: ${[...ids].sort().join(", ")}.`,
    });
  });
}
