import { z } from "zod";
import { ASK_AGENT_ID, DELEGATION_CAPABILITY } from "../core/agents/index.ts";
import { type AnyTool, defineTool } from "../core/tools/tool.ts";

/** The longest task an agent may hand another. */
const MAX_TASK = 8_000;

/**
 * `ask_agent`: the model hands a task to another agent of the bot, which
 * runs a child turn with its own persona, tools and model and answers with
 * its final text. The turn runs it (src/turn/delegation.ts), inside the
 * step that called it, checkpointed under the turn's own checkpoint; this
 * definition is its schema and availability. It needs the `delegation`
 * capability, which only an agent with `delegates:` has, so a config
 * without them offers it nowhere. `effects`: the calls are stored before a
 * child runs, so a resumed turn finishes the same child instead of asking
 * the model anew. A child is bounded by its steps and tokens (the caller's
 * `delegation:`), and each of its model requests and tools by its own
 * timeout, not by a tool timeout of its own.
 */
export function askAgentTool(): AnyTool {
  return defineTool({
    id: ASK_AGENT_ID,
    description:
      "Hands a task to another agent of this bot (the system prompt lists the ones you may ask) and returns its final answer. The agent does not see this conversation: write the task so it stands alone. Use it when the task is that agent's field.",
    parameters: z.object({
      agent: z.string().min(1).max(64).describe("The id of the agent to ask, e.g. engineering"),
      task: z
        .string()
        .trim()
        .min(1)
        .max(MAX_TASK)
        .describe("What the agent should do, with everything it needs to know"),
    }),
    capability: DELEGATION_CAPABILITY,
    effects: true,
    execute: () =>
      `${ASK_AGENT_ID} runs only inside a turn of an agent that names delegates:; nothing was asked.`,
  });
}
