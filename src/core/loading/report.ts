import { describeDecider, describeState } from "../availability/resolve.ts";
import { deferredToolTokens, estimateTokens, residentToolTokens } from "../budget/estimate.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { TOOL_SEARCH_ID, TOOL_SEARCH_WIRE } from "./discovery-tool.ts";
import type { TurnContract } from "./freeze.ts";
import type { LoadMode } from "./modes.ts";

/** What `switchyard tools --json` prints; `/tools` renders the same facts for chat. */
export interface ContractReport {
  readonly mode: LoadMode;
  /** Registry tools that are on (resident or deferred); `tool_search` is not counted. */
  readonly available: number;
  /** Registry tools in all. */
  readonly total: number;
  readonly resident: readonly string[];
  readonly deferred: readonly string[];
  /** Off or absent: `by` is the deciding scope, `toolset`, `picked` or `capability`. */
  readonly disabled: readonly { id: string; by: string; reason: string }[];
  /**
   * On tools whose calls wait for a person's approval (`ask`), in registry
   * order: `by` is the deciding scope, or `tool` for the tool's own default.
   * They are among `resident` or `deferred` too: the model sees them as on.
   */
  readonly asking: readonly { id: string; by: string; reason: string }[];
  readonly tokens: {
    readonly resident: number;
    readonly catalog: number;
    readonly perTool: Readonly<Record<string, number>>;
  };
  readonly contractHash: string;
}

export function reportContract(contract: TurnContract, registry: ToolRegistry): ContractReport {
  const disabled: { id: string; by: string; reason: string }[] = [];
  const asking: { id: string; by: string; reason: string }[] = [];
  for (const state of contract.resolution.states.values()) {
    if (state.status === "enabled" && state.ask !== undefined) {
      const by = state.ask.kind === "scope" ? state.ask.scope : state.ask.kind;
      asking.push({
        id: state.id,
        by,
        reason: `asks first, decided by ${describeDecider(state.ask)}`,
      });
    }
    if (state.status === "absent") {
      disabled.push({ id: state.id, by: "capability", reason: state.reason });
    } else if (state.status === "disabled") {
      const by = state.by.kind === "scope" ? state.by.scope : state.by.kind;
      disabled.push({ id: state.id, by, reason: describeState(state) });
    }
  }
  const perTool: Record<string, number> = {};
  let resident = 0;
  for (const id of contract.resident) {
    const wire = id === TOOL_SEARCH_ID ? TOOL_SEARCH_WIRE : (registry.get(id)?.wire ?? "");
    perTool[id] = residentToolTokens(wire);
    resident += perTool[id];
  }
  // The catalog as sent (braced lines share a prefix); each name is credited its own share.
  const catalog = contract.catalog === "" ? 0 : estimateTokens(contract.catalog);
  if (contract.catalog !== "") {
    const named = contract.deferred.map((id) => deferredToolTokens(id));
    const whole = named.reduce((a, b) => a + b, 0);
    contract.deferred.forEach((id, i) => {
      perTool[id] = Math.max(1, Math.round(((named[i] as number) * catalog) / whole));
    });
  }
  const residentTools = contract.resident.filter((id) => id !== TOOL_SEARCH_ID).length;
  return {
    mode: contract.mode,
    available: residentTools + contract.deferred.length,
    total: registry.size,
    resident: contract.resident,
    deferred: contract.deferred,
    disabled,
    asking,
    tokens: { resident, catalog, perTool },
    contractHash: contract.hash,
  };
}
