import type { Redis } from "ioredis";
import type { AnyTool } from "../../core/tools/tool.ts";
import { type MemoryLimits, MemoryStore } from "./memory-store.ts";
import { forgetTool, recallTool, rememberTool } from "./memory-tools.ts";

export { MemoryLimitError, NoteNotFoundError } from "./errors.ts";
export {
  type MemoryLimits,
  MemoryStore,
  type Note,
  type NoteKeys,
  type NoteOwner,
} from "./memory-store.ts";
export { forgetTool, matchesQuery, recallTool, rememberTool } from "./memory-tools.ts";

export interface MemoryToolsOptions {
  readonly redis: Redis;
  /** The Switchyard key prefix (default "sy"); notes live under `<prefix>:{mem:...}`. */
  readonly prefix?: string;
  /** From the config's `memory:` section (DEFAULT_MEMORY when absent). */
  readonly limits: MemoryLimits;
}

/**
 * `remember`, `recall` and `forget`: short notes about the person a turn
 * speaks for, kept per workspace.
 *
 * @example
 * for (const tool of memoryTools({ redis, prefix: "sy", limits: config.memory })) registry.register(tool);
 */
export function memoryTools(options: MemoryToolsOptions): AnyTool[] {
  const store = new MemoryStore(options.redis, options.prefix ?? "sy", options.limits);
  return [rememberTool(store), recallTool(store), forgetTool(store)];
}
