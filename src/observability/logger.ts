import { createRequire } from "node:module";
import type * as Pino from "pino";
import type { DestinationStream, Logger } from "pino";
import type { LoggerPort } from "../core/logger.ts";
import { REDACTED, registeredSecrets, SecretSet, secretsFromEnv } from "./secrets.ts";

export { REDACTED, redactSecrets, registerSecret } from "./secrets.ts";
export type { Logger };

/** Field names that hold credentials wherever they appear. */
const SECRET_FIELDS = [
  "token",
  "accessToken",
  "access_token",
  "refreshToken",
  "refresh_token",
  "botToken",
  "bot_token",
  "apiKey",
  "api_key",
  "authorization",
  "Authorization",
  "cookie",
  "password",
  "secret",
  "clientSecret",
  "client_secret",
  "signingSecret",
  "signing_secret",
  "privateKey",
  "private_key",
];

/**
 * pino's `*` matches exactly one level, so each field is listed at the top
 * level and two levels down (`{ slack: { auth: { token } } }`). Deeper
 * secrets are still caught by value when they are known secrets.
 */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
  ...["headers", "*.headers"].flatMap((headers) => [
    `${headers}["x-api-key"]`,
    `${headers}["set-cookie"]`,
    `${headers}["x-slack-signature"]`,
  ]),
];

let loaded: typeof Pino.pino | undefined;

/**
 * pino, required by the first logger rather than with the package, so that
 * `import("switchyard")` stays cheap (issue 29). CommonJS only: the module
 * every import of it gets.
 */
function loadPino(): typeof Pino.pino {
  loaded ??= (createRequire(import.meta.url)("pino") as typeof Pino).pino;
  return loaded;
}

export class LogLevelError extends Error {
  override readonly name = "LogLevelError";
  constructor(readonly level: string) {
    super(
      `"${level}" is not a log level. Set LOG_LEVEL to one of: ${[...Object.keys(loadPino().levels.values), "silent"].join(", ")}.`,
    );
  }
}

export interface LoggerOptions {
  /** Defaults to `LOG_LEVEL`, else "info". */
  readonly level?: string;
  /** Where JSON lines go; stdout by default. */
  readonly destination?: DestinationStream;
  /** Read for `LOG_LEVEL` and for secret values; `process.env` by default. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * A JSON logger that never prints a secret: credential fields are censored by
 * path, and known secret values (env vars named `*_TOKEN`, `*_KEY`,
 * `*_SECRET`, `*_PASSWORD` at creation, plus anything passed to
 * `registerSecret`) are replaced wherever they appear in the line — messages,
 * error messages and stacks included.
 *
 * @example
 * const logger = createLogger();
 * logger.info({ conversation: "slack:T1:C1" }, "turn started");
 * logger.error(err, "delivery failed"); // err.message is scrubbed too
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const env = options.env ?? process.env;
  const level = options.level ?? (env.LOG_LEVEL?.trim() || "info");
  const pino = loadPino();
  if (level !== "silent" && !(level in pino.levels.values)) throw new LogLevelError(level);
  const fromEnv = new SecretSet(secretsFromEnv(env));
  const pinoOptions = {
    level,
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    hooks: {
      // The last stop before the stream: sees the whole line, child bindings included.
      streamWrite: (line: string) => registeredSecrets.redactJson(fromEnv.redactJson(line)),
    },
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}

/**
 * Adapts a logger to the core's `LoggerPort`, so pure code can warn without
 * knowing about pino.
 */
export function loggerPort(logger: Logger): LoggerPort {
  return {
    warn: (message, fields) => logger.warn({ ...fields }, message),
  };
}
