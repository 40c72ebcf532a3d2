import { z } from "zod";
import { describeValue } from "./errors.ts";

/**
 * A section's `workspaces:` or `channels:`: overrides by place, each key
 * written `platform:id` ("slack:T0123"), each value what the section sets.
 * `what` names a key ("workspace"), `valuesAre` the values ("limits"), for
 * the error. With `namesBadKeys`, a key that is not `platform:id` says so
 * instead of the map's general error.
 *
 * @example
 * const channels = placeMap("channel", modeOf, "modes");
 */
export function placeMap<T extends z.ZodType>(
  what: string,
  value: T,
  valuesAre: string,
  { namesBadKeys = false }: { readonly namesBadKeys?: boolean } = {},
) {
  const keyProblem = `a ${what} is written platform:id, e.g. "slack:T0123".`;
  return z.record(z.string().regex(/^[a-z][a-z0-9_-]*:.+$/, { error: keyProblem }), value, {
    error: (iss) =>
      namesBadKeys && iss.code === "invalid_key"
        ? keyProblem
        : `expected a map of ${what}s to ${valuesAre}, found ${describeValue(iss.input)}.`,
  });
}

/**
 * A section's overrides by place, `workspaces:` and `channels:`, each a
 * {@link placeMap} of `value` (none when absent), for the section's shape.
 *
 * @example
 * sectionMap("queue", { mode: modeOf.optional(), ...placeOverrides(modeOf, "modes") });
 */
export function placeOverrides<T extends z.ZodType>(
  value: T,
  valuesAre: string,
  options: { readonly namesBadKeys?: boolean } = {},
) {
  return {
    workspaces: placeMap("workspace", value, valuesAre, options).default({}),
    channels: placeMap("channel", value, valuesAre, options).default({}),
  };
}
