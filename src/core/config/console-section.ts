import { z } from "zod";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * The operator console, a web page on the metrics server under `/console`.
 * Off unless enabled here, and even then it answers only requests that carry
 * the token in `SWITCHYARD_CONSOLE_TOKEN` (a bearer token, or the password of
 * basic auth); without that variable it stays off.
 *
 * ```yaml
 * console:
 *   enabled: true
 * ```
 *
 * Read at start.
 */
export interface ConsoleConfig {
  readonly enabled: boolean;
}

export const DEFAULT_CONSOLE: ConsoleConfig = Object.freeze({ enabled: false });

export const consoleSection = sectionMap(
  "console",
  {
    enabled: z
      .boolean({ error: (iss) => `expected true or false, found ${describeValue(iss.input)}.` })
      .default(false),
  },
  { takes: "enabled: (the token stays in SWITCHYARD_CONSOLE_TOKEN)", put: "enabled: true" },
).transform((c): ConsoleConfig => Object.freeze({ enabled: c.enabled }));
