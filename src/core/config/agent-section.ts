import { z } from "zod";
import { parseLoadMode, UnknownModeError } from "../loading/modes.ts";
import { delegatesField, delegationField } from "./delegation-section.ts";
import { describeValue } from "./errors.ts";
import { isToolId } from "./names.ts";
import { parsedBy } from "./parser-issue.ts";
import { checkOneChoice, personaChoice, personaKeys, personaOverrides } from "./persona-section.ts";
import { sectionMap } from "./section-map.ts";

const MODE_CHOICES = "full, default, minimal (alias pi), discover (alias omp)";

/** A load mode by name or alias, as `agent.mode:` and an agent's `mode:` take it. */
export const loadModeField = z
  .string({
    error: (iss) =>
      `expected a load mode, found ${describeValue(iss.input)}. Use one of: ${MODE_CHOICES}.`,
  })
  .transform(parsedBy(parseLoadMode, UnknownModeError));

/**
 * The `agent:` section: the global load mode, toolset and essential set,
 * the persona, and whom the `default` agent (these top-level settings) may
 * ask with `ask_agent` (`delegates:`, `delegation:`, as an `agents:` entry
 * takes them).
 */
export const agentSection = sectionMap(
  "agent",
  {
    ...personaKeys,
    workspaces: personaOverrides("workspace").optional(),
    channels: personaOverrides("channel").optional(),
    mode: loadModeField.optional(),
    toolset: z
      .string({ error: (iss) => `expected a toolset name, found ${describeValue(iss.input)}.` })
      .optional(),
    essential: z
      .array(
        z
          .string({ error: (iss) => `expected a tool id, found ${describeValue(iss.input)}.` })
          .refine(isToolId, {
            error: (iss) =>
              `${describeValue(iss.input)} is not a tool id. Tool ids use letters, digits, "_" and "-", e.g. current_time.`,
          }),
        {
          error: (iss) =>
            `expected a list of tool ids, e.g. [current_time, recall], found ${describeValue(iss.input)}.`,
        },
      )
      .optional(),
    delegates: delegatesField.optional(),
    delegation: delegationField.optional(),
  },
  {
    takes:
      "mode:, toolset:, essential:, persona:, persona_file:, workspaces:, channels:, delegates: and delegation:",
    put: "mode:, toolset:, essential: and persona: lines",
  },
)
  .superRefine((raw, ctx) => checkOneChoice(raw, ctx, []))
  .transform(({ persona, persona_file, workspaces, channels, delegates, ...rest }) => {
    const choice = personaChoice({ persona, persona_file });
    return {
      ...rest,
      ...(delegates !== undefined ? { delegates } : {}),
      ...(choice ? { persona: choice } : {}),
      ...(workspaces ? { workspaces } : {}),
      ...(channels ? { channels } : {}),
    };
  });
