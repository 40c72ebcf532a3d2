import { createRequire } from "node:module";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isInlineSkill, type Skill } from "../core/skills/index.ts";
import type { AnyTool } from "../core/tools/tool.ts";
import type { Channel } from "../ingress/channel.ts";
import { StartOptionError } from "./errors.ts";

/**
 * What a plugin module gives the bot: tools, skills (from `defineSkill`)
 * and/or channels. A module exports one as its default export, or exports
 * `tools`, `skills` and `channels` by name; at least one must hold something.
 *
 * @example
 * // tools/weather.js, named in the config as `plugins: [./tools/weather.js]`
 * import { defineTool } from "switchyard";
 * import { z } from "zod";
 *
 * export const tools = [
 *   defineTool({
 *     id: "weather",
 *     description: "Current weather for a city.",
 *     parameters: z.object({ city: z.string() }),
 *     execute: async ({ city }) => `Sunny in ${city}`,
 *   }),
 * ];
 */
export interface SwitchyardPlugin {
  readonly tools?: readonly AnyTool[];
  readonly skills?: readonly Skill[];
  readonly channels?: readonly Channel[];
}

/** A plugin to load: a file or a package, and the folder a relative path is read from. */
export interface PluginSpec {
  readonly spec: string;
  readonly baseDir: string;
  /** Where it was named, for messages: "the config file", "--plugin". */
  readonly from: string;
}

/**
 * The plugins a process loads: the config's `plugins:` (read from the config
 * file's folder), then the ones given on the command line (`--plugin`, read
 * from the working folder).
 */
export function pluginSpecsFor(
  configured: readonly string[],
  file: string | undefined,
  given: readonly string[] = [],
): PluginSpec[] {
  const baseDir = file ? dirname(resolve(file)) : process.cwd();
  const from = file ? `the config file ${file}` : "the config";
  return [
    ...configured.map((spec) => ({ spec, baseDir, from })),
    ...given.map((spec) => ({ spec, baseDir: process.cwd(), from: "--plugin" })),
  ];
}

/** Types a plugin author writes, checked as they are. */
export function definePlugin(plugin: SwitchyardPlugin): SwitchyardPlugin {
  return plugin;
}

const SHAPE =
  "A plugin exports tools, skills and/or channels: `export default { tools: [...] }`, or `export const tools = [...]` (skills from defineSkill, channels written against the Channel contract).";

/** Loads every plugin in order; the first that fails is a {@link StartOptionError} naming it. */
export async function loadPlugins(specs: readonly PluginSpec[]): Promise<SwitchyardPlugin[]> {
  const plugins: SwitchyardPlugin[] = [];
  for (const spec of specs) plugins.push(await loadPlugin(spec));
  return plugins;
}

async function loadPlugin({ spec, baseDir, from }: PluginSpec): Promise<SwitchyardPlugin> {
  const { url, shown } = locate(spec, baseDir, from);
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new StartOptionError(
      `The plugin ${shown} (from ${from}) failed to load: ${(error as Error).message}`,
    );
  }
  const source = isPluginShape(module.default) ? module.default : module;
  const plugin: SwitchyardPlugin = {
    tools: listOf(source.tools, isTool, shown, "tools", "a tool from defineTool"),
    skills: listOf(source.skills, isInlineSkill, shown, "skills", "a skill from defineSkill"),
    channels: listOf(source.channels, isChannel, shown, "channels", "a Channel"),
  };
  const count =
    (plugin.tools?.length ?? 0) + (plugin.skills?.length ?? 0) + (plugin.channels?.length ?? 0);
  if (count === 0) {
    throw new StartOptionError(
      `The plugin ${shown} (from ${from}) exports nothing usable: it exports ${describeExports(module)}. ${SHAPE}`,
    );
  }
  return plugin;
}

/** A path (`./x.js`, `../x.js`, `/x.js`) from `baseDir`, else a package resolved from there. */
function locate(spec: string, baseDir: string, from: string): { url: string; shown: string } {
  if (spec.startsWith(".") || isAbsolute(spec)) {
    const path = resolve(baseDir, spec);
    return { url: pathToFileURL(path).href, shown: `${spec} (${path})` };
  }
  try {
    // The bot's own node_modules, not the ones beside the installed switchyard.
    const path = createRequire(join(baseDir, "noop.js")).resolve(spec);
    return { url: pathToFileURL(path).href, shown: spec };
  } catch (error) {
    // An ESM-only package may have no `require` export: import resolves it, or says why not.
    if ((error as { code?: string }).code === "ERR_PACKAGE_PATH_NOT_EXPORTED") {
      return { url: spec, shown: spec };
    }
    throw new StartOptionError(
      `The plugin ${spec} (from ${from}) is not a file or an installed package: ${(error as Error).message.split("\n")[0]}. Write a file path as ./${spec}, or npm install ${spec} in ${baseDir}.`,
    );
  }
}

function isPluginShape(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  return "tools" in value || "skills" in value || "channels" in value;
}

function listOf<T>(
  value: unknown,
  check: (item: unknown) => item is T,
  shown: string,
  name: string,
  what: string,
): readonly T[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : undefined;
  const bad = list === undefined ? 0 : list.findIndex((item) => !check(item));
  if (list === undefined || bad >= 0) {
    const at =
      list === undefined ? describeValue(value) : `${name}[${bad}], ${describeValue(list[bad])}`;
    throw new StartOptionError(
      `The plugin ${shown} exports ${name} that is not a list of ${what}s: ${at}. ${SHAPE}`,
    );
  }
  return list;
}

/** Whether `value` is an object whose fields have these `typeof`s. */
function hasFields(value: unknown, types: Readonly<Record<string, string>>): boolean {
  if (typeof value !== "object" || value === null) return false;
  const fields = value as Record<string, unknown>;
  return Object.entries(types).every(([key, type]) => typeof fields[key] === type);
}

function isTool(value: unknown): value is AnyTool {
  // The wire bytes and digest are what defineTool adds: a hand-made object lacks them.
  return hasFields(value, { id: "string", execute: "function", wire: "string", digest: "string" });
}

function isChannel(value: unknown): value is Channel {
  return hasFields(value, {
    platform: "string",
    outbound: "object",
    start: "function",
    stop: "function",
  });
}

function describeExports(module: Record<string, unknown>): string {
  const names = Object.keys(module);
  if (names.length === 0) return "nothing";
  return names.map((name) => `${name} (${describeValue(module[name])})`).join(", ");
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === "function") return "a function";
  if (typeof value === "object") {
    const keys = Object.keys(value);
    return keys.length === 0 ? "an empty object" : `an object with ${keys.join(", ")}`;
  }
  return `${typeof value} ${JSON.stringify(value)}`;
}
