import { z } from "zod";
import { describeValue } from "./errors.ts";

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

export const consoleSection = z
  .strictObject(
    {
      enabled: z
        .boolean({ error: (iss) => `expected true or false, found ${describeValue(iss.input)}.` })
        .default(false),
    },
    {
      error: (iss) =>
        iss.code === "unrecognized_keys"
          ? `unknown key ${JSON.stringify(iss.keys[0])}. The console section takes enabled: (the token stays in SWITCHYARD_CONSOLE_TOKEN).`
          : `expected a map, found ${describeValue(iss.input)}. Put enabled: true under console:.`,
    },
  )
  .transform((c): ConsoleConfig => Object.freeze({ enabled: c.enabled }));
