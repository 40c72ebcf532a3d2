import type { SwitchyardConfig } from "../../core/config/index.ts";

/**
 * One line of `switchyard doctor`: a check that passed, or a problem with
 * what to do about it. `detail` and `fix` never hold a token: every line is
 * redacted before it is printed, and checks name variables, not values.
 */
export interface Finding {
  /** Short and stable: "config", "redis", "model", "slack", "mcp:github". */
  readonly check: string;
  readonly ok: boolean;
  readonly detail: string;
  /** What to do; set on problems. */
  readonly fix?: string;
}

/** What every check reads: the environment and the config file as parsed (empty when it did not parse). */
export interface DoctorContext {
  readonly env: NodeJS.ProcessEnv;
  readonly config: SwitchyardConfig;
  /** How long one check may wait on a server. */
  readonly timeoutMs: number;
}

export const ok = (check: string, detail: string): Finding => ({ check, ok: true, detail });

export const problem = (check: string, detail: string, fix: string): Finding => ({
  check,
  ok: false,
  detail,
  fix,
});

/** The model check's finding when no server for the bot's model is set: `why`, then what it means. */
export const noModelServer = (why: string, fix: string): Finding[] => [
  problem("model", `${why}: turns answer that the bot has no model`, fix),
];

/**
 * The message of anything thrown, on one line, with the system error code
 * underneath it when there is one ("fetch failed" says little; ECONNREFUSED does).
 */
export function reasonOf(error: unknown): string {
  const err = error as { message?: unknown } | undefined;
  const message = typeof err?.message === "string" ? err.message : String(error);
  let code: string | undefined;
  let deepest: string | undefined;
  type Wrapped = { cause?: unknown; original?: unknown; code?: unknown; message?: unknown };
  let inner = (error as Wrapped | undefined)?.cause ?? (error as Wrapped | undefined)?.original;
  for (let depth = 0; depth < 4 && inner && typeof inner === "object"; depth += 1) {
    const wrapped = inner as Wrapped;
    if (typeof wrapped.code === "string") code = wrapped.code;
    if (typeof wrapped.message === "string") deepest = wrapped.message;
    inner = wrapped.cause ?? wrapped.original;
  }
  const under = code ?? deepest;
  const text = under && !message.includes(under) ? `${message} (${under})` : message;
  return text.replace(/\s+/g, " ").trim();
}

/** Rejects after `ms` with a message that says so, for servers that take a request and hang. */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a check; whatever it throws becomes a problem line instead of ending
 * doctor, so one broken check never hides the others.
 */
export async function guarded(
  check: string,
  run: () => Promise<readonly Finding[]>,
): Promise<readonly Finding[]> {
  try {
    return await run();
  } catch (error) {
    return [
      problem(
        check,
        `the check itself failed: ${reasonOf(error)}`,
        "report this as a Switchyard bug, with the line above",
      ),
    ];
  }
}

/**
 * The printed form, one line per finding:
 * `ok       redis    Redis 7.2.4, a single node at redis://127.0.0.1:6379`
 * `problem  model    ... refused the key (HTTP 401). Fix: set OPENAI_API_KEY to a key of that server`
 */
export function formatFinding(finding: Finding): string {
  const status = (finding.ok ? "ok" : "problem").padEnd(7);
  const fix = finding.fix ? ` Fix: ${finding.fix}` : "";
  return `${status}  ${finding.check.padEnd(8)} ${finding.detail}${fix}`;
}
