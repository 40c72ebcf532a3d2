/** The one thing the pure core may do besides return data: say something is off, through a port. */
export interface LoggerPort {
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

export const silentLogger: LoggerPort = { warn: () => {} };

/**
 * Warns once per distinct subject. A stored intent that names a removed tool
 * is read on every turn; the operator wants to hear about it once, not once a
 * turn.
 */
export class WarnOnce {
  readonly #seen = new Set<string>();
  constructor(readonly logger: LoggerPort = silentLogger) {}

  warn(subject: string, message: string): void {
    if (this.#seen.has(subject)) return;
    this.#seen.add(subject);
    this.logger.warn(message, { subject });
  }
}
