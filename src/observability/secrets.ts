/**
 * Secret values that must never reach a log line, whatever field or message
 * they hide in. Path-based redaction catches `{ token }`; this catches the
 * token pasted into an error message by a library we do not control.
 */

/** What a secret is replaced with, in text and in log fields alike. */
export const REDACTED = "[redacted]";

/** Environment variables whose values are treated as secrets. */
export const SECRET_ENV_NAME = /_(TOKEN|KEY|SECRET|PASSWORD)$/i;

/**
 * Env values shorter than this are not harvested: `FEATURE_KEY=1` would
 * otherwise turn every "1" in every log line into "[redacted]". Real tokens,
 * keys and passwords are longer.
 */
const MIN_ENV_SECRET_LENGTH = 6;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One alternation, longest first, so a secret containing another is replaced whole. */
function patternFor(values: Iterable<string>): RegExp | undefined {
  const sorted = [...values].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return undefined;
  return new RegExp(sorted.map(escapeRegExp).join("|"), "g");
}

/**
 * Replaces every occurrence of every secret in `text` with "[redacted]".
 *
 * @example
 * redactSecrets("auth failed for xoxb-123", ["xoxb-123"]) // "auth failed for [redacted]"
 */
export function redactSecrets(text: string, secrets: Iterable<string>): string {
  const pattern = patternFor([...secrets].filter((secret) => secret.length > 0));
  return pattern ? text.replace(pattern, REDACTED) : text;
}

/** The values of env vars named like secrets (`*_TOKEN`, `*_KEY`, `*_SECRET`, `*_PASSWORD`). */
export function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_ENV_NAME.test(name) && value !== undefined)
    .map(([, value]) => (value ?? "").trim())
    .filter((value) => value.length >= MIN_ENV_SECRET_LENGTH);
}

const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/** A growing set of secret values, with the matchers rebuilt only when it grows. */
export class SecretSet {
  readonly #values = new Set<string>();
  #text: RegExp | undefined;
  #json: RegExp | undefined;

  constructor(values: Iterable<string> = []) {
    for (const value of values) this.add(value);
  }

  /** Adds a value; empty strings are ignored (they would match everywhere). */
  add(value: string): void {
    if (value.length === 0 || this.#values.has(value)) return;
    this.#values.add(value);
    this.#text = patternFor(this.#values);
    // Inside a JSON line a secret appears escaped: `a"b` is written `a\"b`.
    this.#json = patternFor([...this.#values].map((v) => JSON.stringify(v).slice(1, -1)));
  }

  get size(): number {
    return this.#values.size;
  }

  redact(text: string): string {
    if (!this.#text) return text;
    return text.replace(this.#text, REDACTED);
  }

  /**
   * Redacts a serialized JSON line, touching only string literals: a numeric
   * secret must not turn `"time":1712345678` into invalid JSON.
   */
  redactJson(line: string): string {
    const pattern = this.#json;
    if (!pattern) return line;
    pattern.lastIndex = 0;
    if (!pattern.test(line)) return line;
    return line.replace(JSON_STRING, (literal) => literal.replace(pattern, REDACTED));
  }
}

/** The process-wide set `registerSecret` adds to; every logger consults it on every line. */
export const registeredSecrets = new SecretSet();

/**
 * Marks a value as secret for every logger in the process, from now on: a
 * password parsed out of a URL, a token fetched at runtime.
 *
 * @example
 * registerSecret(new URL(redisUrl).password);
 */
export function registerSecret(value: string | undefined): void {
  if (value) registeredSecrets.add(value);
}
