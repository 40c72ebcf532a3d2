import { z } from "zod";
import type { Checkpoint } from "../core/agent/checkpoint.ts";
import { canonicalJson } from "../core/tools/canonical-json.ts";

const count = z.number().int().nonnegative();

const checkpointSchema = z.looseObject({
  v: z.literal(1),
  turnId: z.string().min(1),
  step: count,
  historyStart: count,
  inboxCount: count,
  contractHash: z.string(),
  loaded: z.array(z.string()),
  delivered: z.array(z.string()),
  delivering: z.object({ parts: count, digest: z.string() }).optional(),
  done: z.boolean().optional(),
  attachments: z
    .array(z.looseObject({ ref: z.string(), name: z.string(), outcome: z.string(), bytes: count }))
    .optional(),
  files: z
    .array(z.looseObject({ ref: z.string(), name: z.string(), type: z.string(), bytes: count }))
    .optional(),
  approval: z
    .looseObject({
      id: z.string().regex(/^[a-z0-9]{12}$/),
      step: count,
      calls: z.array(
        z.looseObject({ callId: z.string(), tool: z.string(), arguments: z.string() }),
      ),
      requester: z.looseObject({ user: z.string() }),
      expiresAt: z.number(),
    })
    .optional(),
  calling: z
    .object({
      step: count,
      message: z.looseObject({ role: z.literal("assistant"), tool_calls: z.array(z.unknown()) }),
    })
    .optional(),
  children: z
    .record(
      z.string(),
      z.looseObject({
        agent: z.string(),
        step: count,
        messages: z.array(z.looseObject({ role: z.string() })),
        loaded: z.array(z.string()),
        calling: z
          .looseObject({ role: z.literal("assistant"), tool_calls: z.array(z.unknown()) })
          .optional(),
        usage: z.looseObject({ promptTokens: count, cachedTokens: count, completionTokens: count }),
      }),
    )
    .optional(),
});

export function encodeCheckpoint(checkpoint: Checkpoint): string {
  return canonicalJson(checkpoint);
}

/** The stored checkpoint, or why it cannot be read. */
export function decodeCheckpoint(raw: string): { checkpoint?: Checkpoint; problem?: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message})` };
  }
  const parsed = checkpointSchema.safeParse(value);
  if (parsed.success) return { checkpoint: value as Checkpoint };
  const issue = parsed.error.issues[0];
  return { problem: `${issue?.path.join(".") || "checkpoint"}: ${issue?.message ?? "invalid"}` };
}
