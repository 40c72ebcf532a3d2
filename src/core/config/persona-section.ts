import { z } from "zod";
import type { ConversationAddress } from "../conversation.ts";
import { describeValue } from "./errors.ts";
import { everyKey } from "./key-check.ts";

/**
 * The persona: the first block of the system prompt, who the bot is. Written
 * inline or kept in a file beside the config; a workspace or a channel may
 * have its own, deepest wins.
 *
 * ```yaml
 * agent:
 *   persona: You are Ada, the platform team's helper. Answer in two sentences.
 *   # persona_file: ./persona.md       # instead of persona:, relative to this file
 *   workspaces:
 *     "slack:T0123": { persona_file: ./personas/support.md }
 *   channels:
 *     "telegram:-1001234": { persona: You answer in French. }
 * ```
 *
 * A file is read when the config is read (at start and at each reload), so
 * every turn between two reloads sends the same bytes (rule 2).
 */
export type PersonaChoice = { readonly text: string } | { readonly file: string };

/** The persona keys of the `agent:` section, as read. */
export interface PersonaConfig {
  readonly persona?: PersonaChoice;
  /** By `platform:workspace`. */
  readonly workspaces?: Readonly<Record<string, PersonaChoice>>;
  /** By `platform:channel`. */
  readonly channels?: Readonly<Record<string, PersonaChoice>>;
}

/** The longest persona taken, inline or from a file: it rides in every request. */
export const MAX_PERSONA_BYTES = 32 * 1024;

const text = z
  .string({ error: (iss) => `expected the persona as text, found ${describeValue(iss.input)}.` })
  .refine((value) => value.trim() !== "", {
    error: "is empty; write the persona, or leave it out.",
  })
  .refine((value) => Buffer.byteLength(value, "utf8") <= MAX_PERSONA_BYTES, {
    error: `is over ${MAX_PERSONA_BYTES} bytes; a persona rides in every request, keep it short.`,
  });

const file = z
  .string({ error: (iss) => `expected a file path, found ${describeValue(iss.input)}.` })
  .refine((path) => path.trim() !== "" && !path.includes("\0"), {
    error: (iss) => `${describeValue(iss.input)} is not a file path.`,
  });

/** `persona:` or `persona_file:`, the keys of an override and of `agent:` itself. */
export const personaKeys = {
  persona: text.optional(),
  persona_file: file.optional(),
};

type RawChoice = { persona?: string | undefined; persona_file?: string | undefined };

export function personaChoice(raw: RawChoice): PersonaChoice | undefined {
  if (raw.persona !== undefined) return { text: raw.persona };
  if (raw.persona_file !== undefined) return { file: raw.persona_file };
  return undefined;
}

/** Both keys at once is a mistake: which one was meant cannot be guessed. */
export function checkOneChoice(raw: RawChoice, ctx: z.RefinementCtx, at: (string | number)[]) {
  if (raw.persona === undefined || raw.persona_file === undefined) return;
  ctx.addIssue({
    code: "custom",
    path: [...at, "persona_file"],
    message: "is set beside persona:. Keep one: the persona inline, or the file that holds it.",
  });
}

const override = z
  .strictObject(personaKeys, {
    error: (iss) =>
      iss.code === "unrecognized_keys"
        ? `unknown key ${JSON.stringify(iss.keys[0])}. An override takes persona: or persona_file:.`
        : `expected a map with persona: or persona_file:, found ${describeValue(iss.input)}.`,
  })
  .superRefine((raw, ctx) => checkOneChoice(raw, ctx, []));

/** `workspaces:` or `channels:` under `agent:`: `platform:id` to an override. */
export const personaOverrides = (what: string) =>
  z
    .record(z.string(), override, {
      error: (iss) =>
        `expected a map of ${what}s to { persona: ... }, found ${describeValue(iss.input)}.`,
    })
    .superRefine(
      everyKey(
        (key) => /^[a-z][a-z0-9_-]*:.+$/.test(key),
        `is not a ${what}. A ${what} is written platform:id, e.g. "slack:T0123".`,
      ),
    )
    .transform((map) => {
      const choices: Record<string, PersonaChoice> = {};
      for (const [key, raw] of Object.entries(map)) {
        const choice = personaChoice(raw);
        if (choice) choices[key] = choice;
      }
      return Object.freeze(choices);
    });

/** The choice that applies to a conversation: its channel's, else its workspace's, else the global one. */
export function personaChoiceFor(
  config: PersonaConfig,
  address: Pick<ConversationAddress, "platform" | "workspace" | "channel">,
): PersonaChoice | undefined {
  const own = (map: Readonly<Record<string, PersonaChoice>> | undefined, key: string) =>
    map && Object.hasOwn(map, key) ? map[key] : undefined;
  return (
    own(config.channels, `${address.platform}:${address.channel}`) ??
    own(config.workspaces, `${address.platform}:${address.workspace}`) ??
    config.persona
  );
}
