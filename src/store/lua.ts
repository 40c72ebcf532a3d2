import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Redis } from "ioredis";

/** Where the scripts live: `src/store/lua/` in a checkout, `dist/store/lua/` in the package. */
export const LUA_DIR = fileURLToPath(new URL("./lua/", import.meta.url));

/** `--- @include "includes/fragment"`: BullMQ's spelling, resolved from the including file. */
const INCLUDE = /^---\s*@include\s+"([^"]+)"\s*$/gm;

/** A script named without its key count, or run with another number of keys. */
export class LuaFileError extends Error {
  override readonly name = "LuaFileError";
}

/**
 * A script's text with its includes expanded in place, each file once: a
 * fragment included twice would define its functions twice, and two
 * fragments that include each other end there instead of looping.
 */
function expand(file: string, seen: Set<string>): string {
  seen.add(file);
  return readFileSync(file, "utf8").replace(INCLUDE, (_line, target: string) => {
    const included = join(dirname(file), `${target}.lua`);
    return seen.has(included) ? "" : expand(included, seen);
  });
}

/**
 * A Lua script run by its SHA, loaded on first use. Everything a script does
 * happens atomically in Redis, which is why every read-modify-write of the
 * store is one of these rather than a GET and a SET from JavaScript.
 */
export class LuaScript {
  #source: string | (() => string);
  #sha: string | undefined;

  /**
   * @param source the script's text, or a function that reads it on first use
   * @param keyCount how many keys every run passes, checked at each run; unset: not checked
   */
  constructor(
    source: string | (() => string),
    readonly keyCount?: number,
  ) {
    this.#source = source;
  }

  /**
   * A script of `src/store/lua/`, by its file name without `.lua`. The name
   * ends in its key count, as BullMQ names its scripts, and every run is held
   * to it. The file is read when the script first runs, so importing a store
   * module reads nothing.
   *
   * @example
   * const SIGNAL = LuaScript.file("turn-signal-3"); // src/store/lua/turn-signal-3.lua
   * await SIGNAL.run(redis, [checkpointKey, controlKey, inboxKey], ["stop"]);
   */
  static file(name: string, dir: string = LUA_DIR): LuaScript {
    const count = /-(\d+)$/.exec(name)?.[1];
    if (count === undefined) {
      throw new LuaFileError(
        `Lua script "${name}" has no key count; name its file like "${name}-2.lua" (it takes 2 keys)`,
      );
    }
    return new LuaScript(() => expand(join(dir, `${name}.lua`), new Set()), Number(count));
  }

  /**
   * A store's scripts at once, by their names after `family`: each is the
   * file `<family>-<name>-<keys>.lua`, as {@link LuaScript.file} reads it.
   *
   * @example
   * const LUA = LuaScript.set("schedule", { put: 2, claim: 1 });
   * // LUA.put reads src/store/lua/schedule-put-2.lua; LUA.claim, schedule-claim-1.lua
   */
  static set<const Names extends Record<string, number>>(
    family: string,
    keys: Names,
  ): { readonly [Name in keyof Names]: LuaScript } {
    return Object.fromEntries(
      Object.entries(keys).map(([name, count]) => [
        name,
        LuaScript.file(`${family}-${name}-${count}`),
      ]),
    ) as { readonly [Name in keyof Names]: LuaScript };
  }

  get source(): string {
    if (typeof this.#source === "function") this.#source = this.#source();
    return this.#source;
  }

  get sha(): string {
    this.#sha ??= createHash("sha1").update(this.source).digest("hex");
    return this.#sha;
  }

  async run(
    redis: Redis,
    keys: readonly string[],
    args: readonly (string | number)[] = [],
  ): Promise<unknown> {
    if (this.keyCount !== undefined && keys.length !== this.keyCount) {
      throw new LuaFileError(
        `Lua script takes ${this.keyCount} keys and was given ${keys.length}; pass the keys its file lists`,
      );
    }
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error)?.message).startsWith("NOSCRIPT")) throw error;
      // EVAL also caches the script, so the next run finds it by SHA again.
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/** A Lua reply of `HGETALL` (a flat field, value, field, value list) as a record. */
export function hashFromReply(reply: unknown): Record<string, string> {
  const hash: Record<string, string> = {};
  if (!Array.isArray(reply)) return hash;
  for (let i = 0; i + 1 < reply.length; i += 2) hash[String(reply[i])] = String(reply[i + 1]);
  return hash;
}

/**
 * Lua's `unpack` is limited by the C stack (a few thousand values), so
 * scripts that take many arguments feed them to a command in chunks.
 */
export const UNPACK_CHUNK = 1000;
