import { z } from "zod";
import { describeValue } from "./errors.ts";

/**
 * Code the bot loads at start, without an entry file of its own: each entry
 * is a file (relative paths are read from the config file's folder) or an
 * npm package the bot's folder has installed. Each module exports tools,
 * skills and/or channels (see `SwitchyardPlugin`). Read at start.
 *
 * ```yaml
 * plugins:
 *   - ./tools/weather.js
 *   - switchyard-plugin-jira
 * ```
 */
export type PluginsConfig = readonly string[];

export const NO_PLUGINS: PluginsConfig = Object.freeze([]);

const entry = z
  .string({
    error: (iss) =>
      `expected a file path or a package name, e.g. ./tools/weather.js, found ${describeValue(iss.input)}.`,
  })
  .refine((spec) => spec.trim() !== "" && !spec.includes("\0"), {
    error: (iss) => `${describeValue(iss.input)} is not a file path or a package name.`,
  });

export const pluginsSection = z
  .preprocess(
    (value) => (typeof value === "string" ? [value] : value),
    z.array(entry, {
      error: (iss) =>
        `expected a list of files and packages, e.g. [./tools/weather.js, some-package], found ${describeValue(iss.input)}.`,
    }),
  )
  .transform((list): PluginsConfig => Object.freeze([...new Set(list)]));
