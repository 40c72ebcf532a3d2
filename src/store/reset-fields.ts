import { LuaScript } from "./lua.ts";

/**
 * Deletes every field of a hash except those kept, sets `v`, and returns the
 * hash: a reset that keeps what it must keep (discovery mounts, skill toggles)
 * and drops everything else, including fields a newer version may add.
 * Run it with the hash as its key, the version to write to `v`, then the
 * fields to keep; one ending in ":" keeps every field with that prefix.
 */
export const resetFields = LuaScript.file("fields-reset-1");
