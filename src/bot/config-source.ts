import { EMPTY_CONFIG } from "../channels/config.ts";
import type { SwitchyardConfig } from "../core/config/index.ts";
import type { LoggerPort } from "../core/logger.ts";
import { LiveConfig } from "./config-file.ts";
import type { ConfigSource } from "./options.ts";

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
