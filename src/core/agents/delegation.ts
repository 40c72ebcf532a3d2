import type { TurnResult } from "../agent/loop.ts";
import { addUsage, type Usage, ZERO_USAGE } from "../agent/messages.ts";
import type { Provider } from "../agent/provider.ts";
import type { CapabilityStatus } from "../availability/capabilities.ts";
import { DEFAULT_DELEGATION, type DelegationLimits } from "../config/agents-section.ts";
import type { AgentDefinition } from "./agent.ts";

export { DEFAULT_DELEGATION, type DelegationLimits };

/** The tool an agent asks another agent with, and its availability key. */
export const ASK_AGENT_ID = "ask_agent";

/**
 * The capability `ask_agent` needs: present only for a turn (or a child
 * turn) whose agent names `delegates:` and may still go one level deeper.
 * Absent, the tool is off at the floor with the reason, whatever a scope says.
 */
export const DELEGATION_CAPABILITY = "delegation";

/** The longest child answer handed back as the tool result; the rest is cut with a note. */
export const MAX_CHILD_ANSWER = 8_000;

/** The bounds of the delegations `agent` starts. */
export function delegationLimits(agent: AgentDefinition): DelegationLimits {
  return agent.delegation ?? DEFAULT_DELEGATION;
}

/**
 * Whether `agent` may ask others here: it names `delegates:`, and
 * `levelsLeft` (the levels of agents that may still run below it) is not
 * spent. A turn's own agent starts with its `delegation.depth`; each child
 * has one level fewer than its caller.
 */
export function delegationStatus(agent: AgentDefinition, levelsLeft: number): CapabilityStatus {
  if (!agent.delegates?.length) {
    return {
      available: false,
      reason: `agent ${agent.id} asks no other agents (its config names no delegates:)`,
    };
  }
  if (levelsLeft <= 0) {
    return {
      available: false,
      reason: `agent ${agent.id} runs as a delegated agent, and the delegation's depth: allows no further level`,
    };
  }
  return { available: true };
}

/** The key a child turn is stored under in its turn's checkpoint: the call path from the turn. */
export function childPath(parent: string | undefined, callId: string): string {
  return parent === undefined ? callId : `${parent}/${callId}`;
}

/**
 * Why `caller` may not ask `callee`, or undefined when it may. The text is
 * the tool result the model reads, so it names the agents it may ask.
 */
export function refuseDelegation(
  caller: AgentDefinition,
  callee: string,
  agents: ReadonlyMap<string, AgentDefinition>,
): string | undefined {
  const allowed = (caller.delegates ?? []).filter((id) => agents.has(id));
  if (allowed.includes(callee) && callee !== caller.id) return undefined;
  const which = allowed.length > 0 ? `Ask one of: ${allowed.join(", ")}.` : "It may ask none.";
  return `Agent ${caller.id} may not ask ${JSON.stringify(callee)}. ${which}`;
}

/**
 * The system prompt block that tells an agent whom it may ask; empty when
 * it may ask no one. Deterministic: the config's order, no ids of turns.
 */
export function delegatesBlock(
  caller: AgentDefinition,
  agents: ReadonlyMap<string, AgentDefinition>,
): string {
  const lines = (caller.delegates ?? [])
    .map((id) => agents.get(id))
    .filter((agent): agent is AgentDefinition => agent !== undefined && agent.id !== caller.id)
    .map((agent) => `- ${agent.id}${agent.name !== agent.id ? ` (${agent.name})` : ""}`);
  if (lines.length === 0) return "";
  return `## Other agents\nYou can hand a task to one of these agents with ${ASK_AGENT_ID}; its final answer comes back as the tool result. Write the task so it stands alone: the agent does not see this conversation.\n${lines.join("\n")}`;
}

/** The block a child turn's system prompt carries: whom it answers, and that nobody else reads it. */
export const CHILD_BLOCK =
  "## Delegated task\nAnother agent handed you the task in the user message. Your final answer goes back to that agent, not to a person: answer the task completely and plainly in it. You cannot post into the conversation.";

/** A child's answer as its caller's tool result: labelled, capped, and with how it ended. */
export function childAnswer(
  callee: AgentDefinition,
  result: Pick<TurnResult, "answer" | "stop">,
): { readonly output: string; readonly outcome: "ok" | "error" } {
  const said = cap(result.answer.trim());
  switch (result.stop) {
    case "answer":
      return { output: `${callee.id} answered:\n${said}`, outcome: "ok" };
    case "step_limit":
      return { output: `${callee.id} stopped at its step limit:\n${said}`, outcome: "ok" };
    case "provider_error":
      return { output: `${callee.id} could not answer: ${said}`, outcome: "error" };
    case "awaiting_approval":
      return {
        output: `${callee.id} stopped: it called a tool that waits for a person's approval, which a delegated agent cannot wait for. Do the step yourself, or ask the person.`,
        outcome: "error",
      };
    case "interrupted":
      return { output: `${callee.id} was stopped before it answered.`, outcome: "error" };
  }
}

function cap(text: string): string {
  if (text.length <= MAX_CHILD_ANSWER) return text;
  return `${text.slice(0, MAX_CHILD_ANSWER)}\n[cut: the answer was ${text.length} characters; the first ${MAX_CHILD_ANSWER} are shown]`;
}

/** Prompt and completion tokens: what a child's `tokens:` bound counts. */
export function tokensOf(usage: Usage): number {
  return usage.promptTokens + usage.completionTokens;
}

/**
 * A provider that stops asking the model once `tokens` are spent (counting
 * `spent` from before a crash): the step that would exceed the bound gets a
 * closing answer instead of a request, so a child ends by answering, like
 * the loop's own step limit. Every response's usage is told to `onUsage`.
 */
export function budgetedProvider(
  provider: Provider,
  tokens: number,
  spent: Usage,
  onUsage: (usage: Usage) => void,
): Provider {
  let total = spent;
  return {
    async complete(request) {
      if (tokensOf(total) >= tokens) {
        return {
          content: `I stopped: this task used the ${tokens} tokens it was given before I finished.`,
          toolCalls: [],
          finishReason: "length",
          usage: ZERO_USAGE,
        };
      }
      const response = await provider.complete(request);
      total = addUsage(total, response.usage);
      onUsage(response.usage);
      return response;
    },
  };
}
