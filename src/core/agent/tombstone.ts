import type { Decider } from "../availability/resolve.ts";
import type { ScopeName } from "../availability/scopes.ts";
import type { TurnContract } from "../loading/freeze.ts";
import type { LoadMode } from "../loading/modes.ts";

/**
 * What a tool call gets instead of running. The text goes to the model as the
 * call's result (so it can tell the person what to do); the structured fields
 * let a channel render it for people. A tombstone never enables anything: only
 * people change availability (rule 8), so the texts say what a person can do.
 */
export type Tombstone =
  | {
      readonly kind: "disabled";
      readonly id: string;
      /** The deciding scope, or `selection` when the tool is outside the toolset or pick. */
      readonly scope: ScopeName | "selection";
      readonly by: Decider;
      readonly text: string;
    }
  | {
      readonly kind: "absent";
      readonly id: string;
      readonly capability: string;
      readonly reason: string;
      readonly text: string;
    }
  | {
      readonly kind: "deferred";
      readonly id: string;
      readonly mode: LoadMode;
      readonly text: string;
    }
  | { readonly kind: "unknown"; readonly id: string; readonly text: string };

/** The tombstone for a call to `name` under this contract, or undefined when the call may run. */
export function tombstoneFor(contract: TurnContract, name: string): Tombstone | undefined {
  if (contract.callable.has(name)) return undefined;
  const state = contract.resolution.states.get(name);
  if (!state) {
    const hint = contract.discovery
      ? " Call tool_search to find a tool that does what you need."
      : " Call only the tools you were given.";
    return { kind: "unknown", id: name, text: `There is no tool named "${name}".${hint}` };
  }
  switch (state.status) {
    case "absent":
      return {
        kind: "absent",
        id: name,
        capability: state.capability,
        reason: state.reason,
        text: `Tool "${name}" is unavailable: ${state.reason}. No command in the chat can turn it on; the bot's operator has to provide it. Tell the person, and do without it.`,
      };
    case "disabled":
      return {
        kind: "disabled",
        id: name,
        scope: state.by.kind === "scope" ? state.by.scope : "selection",
        by: state.by,
        text: disabledText(name, state.by),
      };
    case "enabled":
      return {
        kind: "deferred",
        id: name,
        mode: contract.mode,
        text: deferredText(name, contract),
      };
  }
}

function disabledText(name: string, by: Decider): string {
  if (by.kind === "scope" && by.scope === "runtime") {
    return `Tool "${name}" is disabled by the runtime scope (${by.key}=off in --tools or SWITCHYARD_TOOLS). Only the bot's operator can re-enable it, by restarting without that setting.`;
  }
  const why =
    by.kind === "scope"
      ? `disabled by the ${by.scope} scope${by.key === name ? "" : ` (${by.key}=off)`}`
      : by.kind === "toolset"
        ? `not in the ${by.toolset} toolset`
        : "not in this conversation's hand-picked tool list";
  return `Tool "${name}" is ${why}. A person can re-enable it with /tools on ${name}. Tell them, and do without it for now.`;
}

function deferredText(name: string, contract: TurnContract): string {
  if (contract.discovery) {
    return `Tool "${name}" is not loaded yet. Call tool_search with {"load":["${name}"]}, then call it again.`;
  }
  return `Tool "${name}" is not loaded in ${contract.mode} mode, which has no tool discovery. A person can load it with /tools on ${name}, or switch mode with /tools mode discover.`;
}
