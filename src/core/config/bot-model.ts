/**
 * The model requests name when neither the environment (`SWITCHYARD_MODEL`)
 * nor a chat choice (`/model`) picks one. One home: the provider, the
 * doctor, `/model` and the `vision` capability all name the same model.
 */
export const FALLBACK_MODEL = "gpt-4.1-mini";

/** The bot's own model: `SWITCHYARD_MODEL`, else (unset or empty) {@link FALLBACK_MODEL}. */
export function botModelOf(env: Readonly<Record<string, string | undefined>>): string {
  return env.SWITCHYARD_MODEL?.trim() || FALLBACK_MODEL;
}
