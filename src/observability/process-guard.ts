/**
 * What the process does with an error nobody caught: a library that throws
 * in a timer or an event handler (`uncaughtException`), or a promise that
 * rejects with no one waiting on it (`unhandledRejection`). Node's default is
 * to exit, which for a bot means one odd payload or one library bug takes
 * every conversation of the process down with it.
 *
 * The policy `switchyard start` installs:
 *
 * 1. **Log and count, then keep running.** Each error is logged at `error`
 *    level through the process's logger (so tokens and other registered
 *    secrets are redacted from its message and stack like every other line)
 *    and counted in `switchyard_process_errors_total{kind}`. Turns in
 *    progress and the gateway sessions carry on.
 * 2. **A storm means the process is broken: exit.** More than `maxErrors`
 *    (default 10) within `windowMs` (default 60 s) is no longer a stray
 *    failure but a process that cannot do its work. The guard logs a `fatal`
 *    line saying so and exits with code 70 (EX_SOFTWARE), so a supervisor
 *    (systemd, Kubernetes, compose `restart:`) starts a fresh one. Nothing is
 *    lost by exiting: messages wait in Redis, and a turn cut short resumes
 *    from its checkpoint on another worker, as after any crash.
 *
 * Surviving an `uncaughtException` is a choice: Node warns that the process
 * may be in an undefined state afterwards. Switchyard keeps all of its state
 * in Redis and every unit of work (a turn, an event) is retried or resumed
 * from there, so a wrong in-memory state costs at most that one unit; the
 * storm rule ends a process that is really broken.
 *
 * @example
 * const guard = installProcessGuard({
 *   logger,                                       // pino, with redaction
 *   count: (kind) => metrics.countProcessError(kind),
 * });
 * // ... on shutdown, or in a test:
 * guard.uninstall();
 */

/** Which of Node's two last-chance events the error came through. */
export type ProcessErrorKind = "uncaughtException" | "unhandledRejection";

/** The two levels the guard logs at (pino's signature: fields first). */
export interface ProcessGuardLogger {
  error(fields: object, message: string): void;
  fatal(fields: object, message: string): void;
}

export interface ProcessGuardOptions {
  readonly logger: ProcessGuardLogger;
  /** Called once per error, e.g. to count it in a metric. */
  readonly count?: (kind: ProcessErrorKind) => void;
  /** More errors than this within `windowMs` is a storm (default 10). */
  readonly maxErrors?: number;
  /** The window the storm rule counts in (default 60 s). */
  readonly windowMs?: number;
  /** What a storm does once it is logged; default: exit with {@link STORM_EXIT_CODE}. */
  readonly onStorm?: () => void;
  /** The clock; default `Date.now`. */
  readonly now?: () => number;
  /** The process to guard; default the current one. */
  readonly target?: NodeJS.Process;
}

export interface ProcessGuard {
  /** Errors seen so far, storm or not. */
  readonly errors: number;
  /** Removes the listeners: Node's default (exit on the first error) applies again. */
  uninstall(): void;
}

/** EX_SOFTWARE from sysexits.h: an internal error; the supervisor should restart the process. */
export const STORM_EXIT_CODE = 70;
export const DEFAULT_MAX_ERRORS = 10;
export const DEFAULT_WINDOW_MS = 60_000;

/** A bad `maxErrors` or `windowMs`; the message names the one and what it takes. */
export class ProcessGuardOptionError extends Error {
  override readonly name = "ProcessGuardOptionError";
}

/**
 * Installs the policy above on `process` (or `options.target`). Install it
 * once, as early as the logger exists; a second guard on the same process
 * would log every error twice.
 */
export function installProcessGuard(options: ProcessGuardOptions): ProcessGuard {
  const maxErrors = options.maxErrors ?? DEFAULT_MAX_ERRORS;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  if (!Number.isInteger(maxErrors) || maxErrors < 1) {
    throw new ProcessGuardOptionError(
      `maxErrors must be a whole number of errors, 1 or more, not ${maxErrors}.`,
    );
  }
  if (!Number.isFinite(windowMs) || windowMs <= 0) {
    throw new ProcessGuardOptionError(
      `windowMs must be a positive number of milliseconds, not ${windowMs}.`,
    );
  }
  const target = options.target ?? process;
  const now = options.now ?? Date.now;
  const onStorm = options.onStorm ?? (() => target.exit(STORM_EXIT_CODE));
  const recent: number[] = [];
  let errors = 0;
  let storming = false;

  const seen = (kind: ProcessErrorKind, error: unknown) => {
    errors += 1;
    // Whatever happens below, the guard itself must never throw: that would be the exit it exists to prevent.
    try {
      options.count?.(kind);
    } catch {}
    if (storming) return;
    const at = now();
    recent.push(at);
    while (recent.length > 0 && (recent[0] as number) <= at - windowMs) recent.shift();
    const fields = { kind, ...describe(error) };
    try {
      options.logger.error(
        fields,
        kind === "uncaughtException"
          ? "an exception nobody caught reached the process; it keeps running"
          : "a promise rejected with nobody waiting for it; the process keeps running",
      );
    } catch {}
    if (recent.length <= maxErrors) return;
    storming = true;
    try {
      options.logger.fatal(
        { kind, errors: recent.length, windowMs, exitCode: STORM_EXIT_CODE },
        `${recent.length} uncaught errors within ${Math.round(windowMs / 1000)} s: this process is broken; exiting with code ${STORM_EXIT_CODE} so a supervisor restarts it`,
      );
    } catch {}
    onStorm();
  };
  const onException = (error: unknown) => seen("uncaughtException", error);
  const onRejection = (reason: unknown) => seen("unhandledRejection", reason);
  target.on("uncaughtException", onException);
  target.on("unhandledRejection", onRejection);
  return {
    get errors() {
      return errors;
    },
    uninstall() {
      target.off("uncaughtException", onException);
      target.off("unhandledRejection", onRejection);
    },
  };
}

/** An error as log fields: pino's `err` serializer for errors, the value as text otherwise. */
function describe(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { err: error };
  let text: string;
  try {
    text = typeof error === "string" ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    text = String(error);
  }
  return { reason: text };
}
