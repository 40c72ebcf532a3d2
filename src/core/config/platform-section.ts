import type { z } from "zod";

/**
 * The config types of the platforms this build knows, by section name. The
 * core knows no platform, so it is empty here: each platform's folder adds
 * its own, and `SwitchyardConfig` then has that key.
 *
 * @example
 * // src/platforms/slack/config-section.ts
 * declare module "./platform-section.ts" {
 *   interface PlatformConfigs {
 *     readonly slack: SlackConfig;
 *   }
 * }
 */
// biome-ignore lint/suspicious/noEmptyInterface: platform folders add their keys by declaration merging.
export interface PlatformConfigs {}

/** A top-level key a platform's section is read from: `slack`, `discord`, `telegram`. */
export type PlatformName = keyof PlatformConfigs;

/**
 * One platform's section of the config file, written in its own folder and
 * handed to `defineConfigFormat` by the layer that knows the
 * platforms. Its errors are the schema's: say the key and the fix there
 * (`sectionMap` does it for unknown keys and a value that is not a map).
 *
 * @example
 * export const slackPlatformSection = platformSection("slack", slackSection, DEFAULT_SLACK);
 */
export interface PlatformSection<N extends PlatformName> {
  /** The top-level key, and the platform's name. */
  readonly name: N;
  /** Reads the section's map (an empty section arrives as `{}`). */
  readonly schema: z.ZodType<PlatformConfigs[N], unknown>;
  /** What the config holds when the file has no such section. */
  readonly defaults: PlatformConfigs[N];
}

/** A platform's section, frozen: its key, the schema that reads it, and what it holds when absent. */
export function platformSection<N extends PlatformName>(
  name: N,
  schema: PlatformSection<N>["schema"],
  defaults: PlatformConfigs[N],
): PlatformSection<N> {
  return Object.freeze({ name, schema, defaults });
}

/** Every known platform's section, by name: one missing is a type error, as its config key would be. */
export type PlatformSections = { readonly [N in PlatformName]: PlatformSection<N> };
