import { z } from "zod";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * The operator console, a web page on the metrics server under `/console`.
 * Off unless enabled here, and even then it answers only requests that carry
 * the token in `SWITCHYARD_CONSOLE_TOKEN` (a bearer token, or the password of
 * basic auth); without that variable it stays off.
 *
 * `host` is the address the metrics server (and so the console) listens on;
 * `SWITCHYARD_METRICS_HOST` in the environment wins over it. Unset, it is
 * 127.0.0.1 when the console is enabled, so a console is reachable from
 * other machines only when someone says so, and every interface otherwise,
 * so probes and Prometheus reach `/healthz` and `/metrics` on a pod's IP.
 *
 * ```yaml
 * console:
 *   enabled: true
 *   host: 0.0.0.0      # reachable from other machines (default 127.0.0.1)
 * ```
 *
 * Read at start.
 */
export interface ConsoleConfig {
  readonly enabled: boolean;
  readonly host?: string;
}

export const DEFAULT_CONSOLE: ConsoleConfig = Object.freeze({ enabled: false });

/** The address the console listens on when it is enabled and no one chose one. */
export const CONSOLE_DEFAULT_HOST = "127.0.0.1";

/**
 * Why `text` cannot be an address to listen on, or undefined when it can:
 * an IP address or a host name, nothing else (no port, no scheme).
 */
export function bindHostProblem(text: string): string | undefined {
  const ipv6 = /^[0-9A-Fa-f:.]{2,45}$/.test(text) && text.split(":").length > 2;
  if (/^[A-Za-z0-9.-]{1,253}$/.test(text) || ipv6) return undefined;
  return notAnAddress(text);
}

function notAnAddress(found: unknown): string {
  return `expected an address to listen on, such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface), found ${describeValue(found)}.`;
}

export const consoleSection = sectionMap(
  "console",
  {
    enabled: z
      .boolean({ error: (iss) => `expected true or false, found ${describeValue(iss.input)}.` })
      .default(false),
    host: z
      .string({ error: (iss) => notAnAddress(iss.input) })
      .superRefine((text, ctx) => {
        const problem = bindHostProblem(text);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional(),
  },
  {
    takes: "enabled: and host: (the token stays in SWITCHYARD_CONSOLE_TOKEN)",
    put: "enabled: true",
  },
).transform(
  (c): ConsoleConfig =>
    Object.freeze({ enabled: c.enabled, ...(c.host === undefined ? {} : { host: c.host }) }),
);
