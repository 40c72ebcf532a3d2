import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SENDING } from "../../src/platforms/telegram/sent-ledger.ts";
import { MOUNT_PREFIX, MOUNT_SEQ_FIELD } from "../../src/store/intent-fields.ts";
import { LUA_DIR, LuaFileError, LuaScript, UNPACK_CHUNK } from "../../src/store/lua.ts";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

function files(dir: string, ending: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path, ending);
    return entry.name.endsWith(ending) ? [path] : [];
  });
}

/** A folder of scripts for one case: name -> text. */
function scripts(texts: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "lua-"));
  for (const [name, text] of Object.entries(texts)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, `${name}.lua`), text);
  }
  return dir;
}

describe("Lua scripts as files", () => {
  it("expands each include in place, a fragment included twice only once", () => {
    const dir = scripts({
      "includes/pad": "local function pad(s) return s end\n",
      "includes/twice": '--- @include "pad"\nlocal function twice(s) return pad(s) .. s end\n',
      "echo-1":
        '--- @include "includes/pad"\n--- @include "includes/twice"\nreturn twice(KEYS[1])\n',
    });
    const source = LuaScript.file("echo-1", dir).source;
    expect(source.match(/local function pad/g)).toHaveLength(1);
    expect(source).toContain("local function twice");
    expect(source).not.toContain("@include");
    expect(source.indexOf("function pad")).toBeLessThan(source.indexOf("function twice"));
  });

  it("reads fragments that include each other once each, instead of forever", () => {
    const dir = scripts({
      "includes/a": '--- @include "b"\nlocal a = 1\n',
      "includes/b": '--- @include "a"\nlocal b = 2\n',
      "loop-0": '--- @include "includes/a"\nreturn a + b\n',
    });
    const source = LuaScript.file("loop-0", dir).source;
    expect(source.match(/local a = 1/g)).toHaveLength(1);
    expect(source.match(/local b = 2/g)).toHaveLength(1);
  });

  it("refuses a script name without its key count, saying how to name it", () => {
    expect(() => LuaScript.file("push")).toThrow(LuaFileError);
    expect(() => LuaScript.file("push")).toThrow(/name its file like "push-2\.lua"/);
  });

  it("refuses a run with another number of keys than its name says, before Redis sees it", async () => {
    const dir = scripts({ "two-2": "return KEYS[2]\n" });
    const script = LuaScript.file("two-2", dir);
    await expect(script.run({} as never, ["only-one"])).rejects.toThrow(
      /takes 2 keys and was given 1/,
    );
  });

  it("has a file for every script the code names, and no file the code never runs", () => {
    const named = new Set<string>();
    for (const file of files(SRC, ".ts")) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/LuaScript\.file\("([^"]+)"\)/g)) {
        named.add(match[1] as string);
      }
      // LuaScript.set("family", { name: keys, "other-name": keys }): family-name-keys each.
      for (const [, family, body] of text.matchAll(/LuaScript\.set\("([^"]+)",\s*\{([^}]*)\}/g)) {
        for (const [, name, keys] of (body as string).matchAll(/"?([\w-]+)"?:\s*(\d+)/g)) {
          named.add(`${family}-${name}-${keys}`);
        }
      }
    }
    const onDisk = files(LUA_DIR, ".lua")
      .map((file) => relative(LUA_DIR, file).replace(/\.lua$/, ""))
      .filter((name) => !name.startsWith("includes/"));
    expect([...named].sort()).toEqual(onDisk.sort());
    // Every script reads: a broken include would only show when Redis first runs it.
    for (const name of named) expect(LuaScript.file(name).source.length).toBeGreaterThan(0);
  });
});

/** A script or fragment of `src/store/lua/` as stored, by its name without `.lua`. */
function lua(name: string): string {
  return readFileSync(join(LUA_DIR, `${name}.lua`), "utf8");
}

describe("the Lua agrees with the TypeScript constants it spells out", () => {
  it("feeds unpack in chunks of UNPACK_CHUNK everywhere", () => {
    const chunked = files(LUA_DIR, ".lua").filter((file) =>
      readFileSync(file, "utf8").includes("unpack("),
    );
    expect(chunked.length).toBeGreaterThan(0);
    for (const file of chunked) {
      const text = readFileSync(file, "utf8");
      const steps = [...text.matchAll(/^\s*for i = [^,]+, [^,]+, (\d+) do$/gm)].map((m) =>
        Number(m[1]),
      );
      expect(steps.length, file).toBeGreaterThan(0);
      for (const step of steps) expect(step, file).toBe(UNPACK_CHUNK);
      // The last index of a chunk: `i + 999` or `i + 1000 - 1`.
      for (const m of text.matchAll(/i \+ (\d+)( - 1)?\b/g)) {
        expect(Number(m[1]) - (m[2] ? 1 : 0), file).toBe(UNPACK_CHUNK - 1);
      }
    }
  });

  it("names the discovery mounts' fields as intent-fields.ts does", () => {
    for (const name of ["intent-mount-1", "includes/apply-reset"]) {
      const text = lua(name);
      expect(text, name).toContain(`'${MOUNT_SEQ_FIELD}'`);
      expect(text, name).toContain(`, 1, ${MOUNT_PREFIX.length}) == '${MOUNT_PREFIX}'`);
    }
    expect(lua("intent-mount-1")).toContain(`local field = '${MOUNT_PREFIX}' .. ARGV[i]`);
  });

  it("knows a Telegram send on the way by the sent ledger's SENDING", () => {
    expect(lua("sent-record-1")).toContain(`held ~= '${SENDING}'`);
  });
});
