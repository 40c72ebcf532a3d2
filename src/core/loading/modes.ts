/**
 * How much of the enabled set ships full schemas. Modes never disable a tool;
 * they only decide what is resident and what waits in the catalog.
 *
 * - `full`: every enabled tool is resident.
 * - `default`: every enabled tool but those marked `defer`.
 * - `minimal` (alias `pi`): the essential set only; no discovery.
 * - `discover` (alias `omp`): the essential set plus `tool_search`.
 */
export const LOAD_MODES = ["full", "default", "minimal", "discover"] as const;
export type LoadMode = (typeof LOAD_MODES)[number];

export const MODE_ALIASES: Readonly<Record<string, LoadMode>> = { pi: "minimal", omp: "discover" };

export class UnknownModeError extends Error {
  override readonly name = "UnknownModeError";
  constructor(readonly label: string) {
    super(
      `Unknown load mode ${JSON.stringify(label)}. Use one of: full, default, minimal (alias pi), discover (alias omp).`,
    );
  }
}

/** Reads a mode label as a person typed it (any case, aliases allowed). */
export function parseLoadMode(label: string): LoadMode {
  const normalized = label.trim().toLowerCase();
  if ((LOAD_MODES as readonly string[]).includes(normalized)) return normalized as LoadMode;
  // Own keys only: "constructor" or "toString" must not read as an alias.
  const alias = Object.hasOwn(MODE_ALIASES, normalized) ? MODE_ALIASES[normalized] : undefined;
  if (alias) return alias;
  throw new UnknownModeError(label);
}

export function isLoadMode(value: unknown): value is LoadMode {
  return typeof value === "string" && (LOAD_MODES as readonly string[]).includes(value);
}

/** Whether a mode offers `tool_search` when something is deferred. */
export function modeAllowsDiscovery(mode: LoadMode): boolean {
  return mode === "default" || mode === "discover";
}

/** Whether a mode keeps only its essential set (plus mounts) resident. */
export function modeIsCurated(mode: LoadMode): boolean {
  return mode === "minimal" || mode === "discover";
}

/**
 * The essential set for a chat bot: cheap tools that most turns want, so a
 * curated mode still answers "what time is it" or "remember this" without a
 * discovery round trip. Ids not in the registry are simply not there.
 */
export const DEFAULT_ESSENTIAL: readonly string[] = Object.freeze([
  "current_time",
  "recall",
  "remember",
  "skill",
  "web_search",
]);
