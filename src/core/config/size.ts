import { ConfigError } from "./errors.ts";

/**
 * The largest config file read, in bytes. A config is a page of settings; a
 * file past this is a wrong path or a generated dump, and yaml would hold the
 * process for seconds parsing it on every hot reload.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** The error for a config of `bytes` bytes, past {@link MAX_CONFIG_BYTES}. */
export function configTooLarge(file: string, bytes: number): ConfigError {
  return new ConfigError(
    file,
    "",
    undefined,
    `the file is ${bytesText(bytes)}, over the ${bytesText(MAX_CONFIG_BYTES)} limit for a config file. Check that --config or SWITCHYARD_CONFIG names the right file, and keep the config to settings: a few hundred keys fit in a few kilobytes.`,
  );
}

function bytesText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 ? `${Number(mib.toFixed(1))} MiB (${bytes} bytes)` : `${bytes} bytes`;
}
