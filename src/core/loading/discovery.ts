import { tombstoneFor } from "../agent/tombstone.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { expandCatalogName } from "./catalog.ts";
import { describeDeferred, type ToolSearchArgs, toolSearchParameters } from "./discovery-tool.ts";
import type { TurnContract } from "./freeze.ts";

export interface ToolSearchOutcome {
  /** The tool result the model reads. */
  readonly text: string;
  /** Deferred tools to mount: the loop appends them to the contract and the conversation's intent. */
  readonly load: readonly string[];
}

/**
 * Answers a `tool_search` call. Listing and searching cover the deferred
 * tools only; loading mounts those that are deferred and says, per name, why
 * any other could not load (already loaded, disabled, unavailable, unknown).
 */
export function runToolSearch(
  contract: TurnContract,
  registry: ToolRegistry,
  rawArgs: unknown,
): ToolSearchOutcome {
  const parsed = toolSearchParameters.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    return {
      text: `tool_search takes {"query"?: string, "load"?: string[]}: ${parsed.error.issues[0]?.message ?? "invalid arguments"}.`,
      load: [],
    };
  }
  const args: ToolSearchArgs = parsed.data;
  const lines: string[] = [];
  const load: string[] = [];
  if (args.load && args.load.length > 0) {
    for (const name of new Set(args.load.flatMap(expandCatalogName))) {
      if (contract.deferred.includes(name)) {
        load.push(name);
      } else if (contract.callable.has(name)) {
        lines.push(`${name} is already loaded.`);
      } else {
        lines.push(tombstoneFor(contract, name)?.text ?? `${name} cannot be loaded.`);
      }
    }
    if (load.length > 0)
      lines.unshift(`Loaded: ${load.join(", ")}. You can call them from your next step on.`);
  }
  if (args.query !== undefined || !args.load || args.load.length === 0) {
    const remaining = contract.deferred.filter((id) => !load.includes(id));
    lines.push(describeDeferred(registry, remaining, args.query));
  }
  return { text: lines.join("\n"), load };
}
