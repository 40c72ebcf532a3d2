import { existsSync, readFileSync, type StatWatcher, unwatchFile, watchFile } from "node:fs";
import type { LoggerPort } from "../core/availability/warnings.ts";
import {
  EMPTY_CONFIG,
  parseConfig,
  reloadConfig,
  type SwitchyardConfig,
} from "../core/config/index.ts";

/** Config files larger than this are refused before parsing: a config is a page, not a data set. */
const MAX_CONFIG_BYTES = 1024 * 1024;

export class ConfigFileError extends Error {
  override readonly name = "ConfigFileError";
}

/** The config file to use: the flag, else $SWITCHYARD_CONFIG, else ./switchyard.yaml when present. */
export function configPath(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return (
    flag ?? env.SWITCHYARD_CONFIG ?? (existsSync("switchyard.yaml") ? "switchyard.yaml" : undefined)
  );
}

export function readConfigText(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigFileError(
      `Cannot read the config file ${file}: ${(error as Error).message}. Check the path given to --config or SWITCHYARD_CONFIG.`,
    );
  }
  if (text.length > MAX_CONFIG_BYTES) {
    throw new ConfigFileError(
      `The config file ${file} is ${text.length} bytes; the limit is ${MAX_CONFIG_BYTES}. Is this the right file?`,
    );
  }
  return text;
}

/**
 * The config as the process runs with it: read strictly at start (a broken
 * file stops the process with the file, key and line), then re-read when the
 * file changes, keeping the last good config if the new one is broken.
 */
export class LiveConfig {
  #current: SwitchyardConfig;
  #watcher: StatWatcher | undefined;

  constructor(
    readonly file: string | undefined,
    private readonly logger: LoggerPort,
  ) {
    this.#current =
      file === undefined ? EMPTY_CONFIG : parseConfig(readConfigText(file), file, logger);
  }

  get current(): SwitchyardConfig {
    return this.#current;
  }

  /** Re-reads the file when it changes; `onChange` runs after each good reload. */
  watch(onChange: (config: SwitchyardConfig) => void = () => {}, intervalMs = 1000): void {
    const file = this.file;
    if (file === undefined || this.#watcher) return;
    this.#watcher = watchFile(file, { interval: intervalMs, persistent: false }, () => {
      if (this.reload()) onChange(this.#current);
    });
  }

  reload(): boolean {
    if (this.file === undefined) return true;
    let text: string;
    try {
      text = readConfigText(this.file);
    } catch (error) {
      this.logger.warn(`${(error as Error).message} Keeping the last good config.`);
      return false;
    }
    const result = reloadConfig(this.#current, text, this.file, this.logger);
    this.#current = result.config;
    return result.ok;
  }

  close(): void {
    if (this.file !== undefined && this.#watcher) unwatchFile(this.file);
    this.#watcher = undefined;
  }
}
