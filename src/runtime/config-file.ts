import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  type StatWatcher,
  unwatchFile,
  watchFile,
} from "node:fs";
import {
  ConfigError,
  configTooLarge,
  MAX_CONFIG_BYTES,
  type SwitchyardConfig,
} from "../core/config/index.ts";
import type { LoggerPort } from "../core/logger.ts";
import { EMPTY_CONFIG, parseConfig, reloadConfig } from "../platforms/config.ts";
import type { ConfigSource } from "./options.ts";

export class ConfigFileError extends Error {
  override readonly name = "ConfigFileError";
}

/** The config file to use: the flag, else $SWITCHYARD_CONFIG, else ./switchyard.yaml when present. */
export function configPath(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return (
    flag ?? env.SWITCHYARD_CONFIG ?? (existsSync("switchyard.yaml") ? "switchyard.yaml" : undefined)
  );
}

/**
 * The file's text. Its size is checked on the open file before a byte is read,
 * and the read stops one byte past {@link MAX_CONFIG_BYTES}, so a wrong path
 * to a huge file (or one growing while it is read) costs nothing. Throws
 * {@link ConfigError} for a file over the cap, {@link ConfigFileError} for one
 * that cannot be read.
 */
export function readConfigText(file: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    if (size > MAX_CONFIG_BYTES) throw configTooLarge(file, size);
    const buffer = Buffer.allocUnsafe(MAX_CONFIG_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > MAX_CONFIG_BYTES) throw configTooLarge(file, Math.max(size, length));
    return buffer.toString("utf8", 0, length);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigFileError(
      `Cannot read the config file ${file}: ${(error as Error).message}. Check the path given to --config or SWITCHYARD_CONFIG.`,
    );
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export interface WatchOptions {
  /** How often the file is checked for changes. */
  readonly intervalMs?: number;
  /**
   * How long after the first read the file is read again. A change applies
   * only when both reads agree, so a file caught between an editor's
   * truncate and its write (empty, or cut mid-line) never applies.
   */
  readonly settleMs?: number;
}

/** Reads that disagree this many times in a row mean the file is still being written. */
const MAX_SETTLE_ROUNDS = 10;

type Reading = { readonly text: string } | { readonly error: string };

/**
 * The config as the process runs with it: read strictly at start (a broken
 * file stops the process with the file, key and line), then re-read when the
 * file changes, keeping the last good config if the new one is broken or
 * still being written.
 */
export class LiveConfig {
  #current: SwitchyardConfig;
  /** The text #current was read from, so a save that changes nothing reloads nothing. */
  #appliedText: string | undefined;
  #watcher: StatWatcher | undefined;
  #settling: Promise<boolean> | undefined;
  #changedWhileSettling = false;
  #closed = false;
  #settleMs = 200;
  #onChange: (config: SwitchyardConfig) => void = () => {};

  constructor(
    readonly file: string | undefined,
    private readonly logger: LoggerPort,
  ) {
    if (file === undefined) {
      this.#current = EMPTY_CONFIG;
      return;
    }
    const text = readConfigText(file);
    this.#current = parseConfig(text, file, logger);
    this.#appliedText = text;
  }

  get current(): SwitchyardConfig {
    return this.#current;
  }

  /** Re-reads the file when it changes; `onChange` runs after each reload that changed the config. */
  watch(onChange: (config: SwitchyardConfig) => void = () => {}, options: WatchOptions = {}): void {
    const file = this.file;
    if (file === undefined || this.#watcher) return;
    this.#onChange = onChange;
    this.#settleMs = options.settleMs ?? this.#settleMs;
    const intervalMs = options.intervalMs ?? 1000;
    this.#watcher = watchFile(file, { interval: intervalMs, persistent: false }, () => {
      void this.reload();
    });
    // The poller compares with its own first look at the file, which comes after the read at
    // start: one read after that look catches a save made in between.
    setTimeout(() => void this.reload(), intervalMs).unref();
  }

  /**
   * Reads the file until two reads `settleMs` apart agree, then applies it.
   * Resolves true when the config changed; a broken, unreadable or
   * still-changing file warns and keeps the last good config (false).
   * Concurrent calls share one settle, which re-reads if the file changed
   * again meanwhile.
   */
  reload(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    if (this.#settling) {
      this.#changedWhileSettling = true;
      return this.#settling;
    }
    this.#settling = (async () => {
      try {
        let changed = false;
        do {
          this.#changedWhileSettling = false;
          changed = (await this.#settle()) || changed;
        } while (this.#changedWhileSettling && !this.#closed);
        return changed;
      } finally {
        this.#settling = undefined;
      }
    })();
    return this.#settling;
  }

  close(): void {
    this.#closed = true;
    if (this.file !== undefined && this.#watcher) unwatchFile(this.file);
    this.#watcher = undefined;
  }

  async #settle(): Promise<boolean> {
    const file = this.file;
    if (file === undefined) return false;
    let first = read(file);
    for (let round = 0; round < MAX_SETTLE_ROUNDS; round++) {
      await new Promise((resolve) => setTimeout(resolve, this.#settleMs).unref());
      if (this.#closed) return false;
      const second = read(file);
      if (sameReading(first, second)) return this.#apply(file, second);
      first = second;
    }
    this.logger.warn(
      `The config file ${file} was still changing after ${MAX_SETTLE_ROUNDS} reads ${this.#settleMs} ms apart. Keeping the last good config; it is read again on its next change.`,
      { file },
    );
    return false;
  }

  #apply(file: string, reading: Reading): boolean {
    if ("error" in reading) {
      this.logger.warn(`${reading.error} Keeping the last good config.`, { file });
      return false;
    }
    if (reading.text === this.#appliedText) return false;
    const result = reloadConfig(this.#current, reading.text, file, this.logger);
    if (!result.ok) return false;
    this.#current = result.config;
    this.#appliedText = reading.text;
    this.#onChange(this.#current);
    return true;
  }
}

function read(file: string): Reading {
  try {
    return { text: readConfigText(file) };
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ConfigFileError)
      return { error: error.message };
    throw error;
  }
}

function sameReading(a: Reading, b: Reading): boolean {
  return "text" in a && "text" in b ? a.text === b.text : "error" in a && "error" in b;
}

/**
 * The bot's config as a source: a path becomes a watched {@link LiveConfig}
 * (read now, strictly), a parsed config stays as it is, and a source is
 * used as given.
 */
export function configSourceOf(
  config: string | SwitchyardConfig | ConfigSource | undefined,
  logger: LoggerPort,
): ConfigSource {
  if (config === undefined) return { current: EMPTY_CONFIG };
  if (typeof config === "string") return new LiveConfig(config, logger);
  if (isSource(config)) return config;
  return { current: config };
}

function isSource(config: SwitchyardConfig | ConfigSource): config is ConfigSource {
  return "current" in config;
}
