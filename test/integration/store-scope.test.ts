import { describe, expect, it } from "vitest";
import type { LoggerPort } from "../../src/core/logger.ts";
import { createStore, StoreInputError } from "../../src/store/index.ts";
import { connectRedis, useTestRedis } from "../support/redis.ts";

const db = useTestRedis("scope");

const address = { platform: "slack", workspace: "T1", channel: "C1", conversation: "17.5" };
const otherChannel = { ...address, channel: "C2" };

function recordingLogger(): LoggerPort & { messages: string[] } {
  const messages: string[] = [];
  return { messages, warn: (message) => messages.push(message) };
}

describe("scope store", () => {
  it("reads an untouched scope as an empty layer", async () => {
    const { scopes } = createStore(db.redis, { prefix: db.prefix });
    expect(await scopes.read("workspace", address)).toEqual({});
    expect(await scopes.readStack(address)).toEqual({
      workspace: {},
      channel: {},
      globalOverlay: {},
      skills: { workspace: {}, channel: {}, global: {} },
    });
  });

  it("round-trips keys, toolset and mode, per scope", async () => {
    const { scopes } = createStore(db.redis, { prefix: db.prefix });
    await scopes.apply("workspace", address, { kind: "set", key: "mcp", value: "off" });
    await scopes.apply("workspace", address, { kind: "mode", mode: "discover" });
    await scopes.apply("channel", address, { kind: "set", key: "mcp:github", value: "on" });
    await scopes.apply("channel", address, { kind: "set", key: "all", value: "off" });
    const last = await scopes.apply("channel", address, { kind: "toolset", name: "research" });
    expect(last).toEqual({ keys: { all: false, "mcp:github": true }, toolset: "research" });
    await scopes.apply("global", {}, { kind: "set", key: "code_run", value: "off" });
    await scopes.applySkill("channel", address, "meeting-notes", "off");
    expect(await scopes.readStack(address)).toEqual({
      workspace: { keys: { mcp: false }, mode: "discover" },
      channel: { keys: { all: false, "mcp:github": true }, toolset: "research" },
      globalOverlay: { keys: { code_run: false } },
      skills: { workspace: {}, channel: { "meeting-notes": false }, global: {} },
    });
    expect(await scopes.read("channel", otherChannel)).toEqual({});
    expect((await scopes.readStack(otherChannel)).globalOverlay).toEqual({
      keys: { code_run: false },
    });
  });

  it("stores ask beside on and off, and reads layers written before ask as they were", async () => {
    const { scopes, keys } = createStore(db.redis, { prefix: db.prefix });
    await scopes.apply("channel", address, { kind: "set", key: "send_message", value: "ask" });
    await scopes.apply("channel", address, { kind: "set", key: "mcp", value: "ask" });
    await scopes.apply("workspace", address, { kind: "set", key: "all", value: "ask" });
    const global = await scopes.apply(
      "global",
      {},
      { kind: "set", key: "fetch_url", value: "ask" },
    );
    expect(global).toEqual({ keys: { fetch_url: "ask" } });
    expect(await db.redis.hget(keys.scope("channel", address), "d:send_message")).toBe("ask");
    // A hash as an older version wrote it: "1"/"0" still read as on/off.
    await db.redis.hset(keys.scope("channel", address), { "d:web_search": "0", "d:recall": "1" });
    const stack = await scopes.readStack(address);
    expect(stack.channel).toEqual({
      keys: { mcp: "ask", recall: true, send_message: "ask", web_search: false },
    });
    expect(stack.workspace).toEqual({ keys: { all: "ask" } });
    expect(stack.globalOverlay).toEqual({ keys: { fetch_url: "ask" } });
    // ask back to on, and to follow.
    await scopes.apply("channel", address, { kind: "set", key: "send_message", value: "on" });
    const after = await scopes.apply("channel", address, { kind: "reset", key: "mcp" });
    expect(after).toEqual({ keys: { recall: true, send_message: true, web_search: false } });
  });

  it("returns a key to follow with set follow or reset of that key", async () => {
    const { scopes } = createStore(db.redis, { prefix: db.prefix });
    await scopes.apply("channel", address, { kind: "set", key: "recall", value: "on" });
    await scopes.apply("channel", address, { kind: "set", key: "fetch_url", value: "off" });
    await scopes.apply("channel", address, { kind: "set", key: "recall", value: "follow" });
    expect(await scopes.read("channel", address)).toEqual({ keys: { fetch_url: false } });
    await scopes.apply("channel", address, { kind: "reset", key: "fetch_url" });
    expect(await scopes.read("channel", address)).toEqual({});
  });

  it("resets every tool decision, the toolset and the mode, but not skill toggles", async () => {
    const { scopes } = createStore(db.redis, { prefix: db.prefix });
    await scopes.apply("workspace", address, { kind: "set", key: "recall", value: "on" });
    await scopes.apply("workspace", address, { kind: "toolset", name: "research" });
    await scopes.apply("workspace", address, { kind: "mode", mode: "full" });
    await scopes.applySkill("workspace", address, "pdf-tools", "off");
    expect(await scopes.apply("workspace", address, { kind: "reset" })).toEqual({});
    expect(await scopes.readSkills("workspace", address)).toEqual({ "pdf-tools": false });
  });

  it("sets toolset and mode back to follow with null", async () => {
    const { scopes } = createStore(db.redis, { prefix: db.prefix });
    await scopes.apply("channel", address, { kind: "toolset", name: "research" });
    await scopes.apply("channel", address, { kind: "mode", mode: "minimal" });
    await scopes.apply("channel", address, { kind: "toolset", name: null });
    expect(await scopes.apply("channel", address, { kind: "mode", mode: null })).toEqual({});
  });

  it("switches skills on, off and back to follow, apart from tool keys", async () => {
    const { scopes } = createStore(db.redis, { prefix: db.prefix });
    await scopes.applySkill("channel", address, "pdf-tools", "on");
    await scopes.applySkill("channel", address, "release-notes", "off");
    expect(await scopes.readSkills("channel", address)).toEqual({
      "pdf-tools": true,
      "release-notes": false,
    });
    expect(await scopes.applySkill("channel", address, "pdf-tools", "follow")).toEqual({
      "release-notes": false,
    });
    expect(await scopes.read("channel", address)).toEqual({});
  });

  it("keeps all of many toggles of different keys made at the same moment", async () => {
    const clients = Array.from({ length: 4 }, () => connectRedis());
    try {
      const stores = clients.map((redis) => createStore(redis, { prefix: db.prefix }));
      const keys = Array.from({ length: 40 }, (_, i) => `tool_${i}`);
      await Promise.all(
        keys.map((key, i) =>
          stores[i % 4]?.scopes.apply("workspace", address, { kind: "set", key, value: "off" }),
        ),
      );
      const layer = await createStore(db.redis, { prefix: db.prefix }).scopes.read(
        "workspace",
        address,
      );
      expect(layer.keys).toEqual(Object.fromEntries(keys.map((key) => [key, false])));
    } finally {
      await Promise.all(clients.map((redis) => redis.quit()));
    }
  });

  it("skips a field damaged by hand with a warning, keeping the rest", async () => {
    const logger = recordingLogger();
    const { scopes, keys } = createStore(db.redis, { prefix: db.prefix, logger });
    await db.redis.hset(keys.scope("channel", address), {
      "d:recall": "1",
      "d:fetch_url": "true",
      "d:bad key": "0",
      toolset: "",
      mode: "turbo",
      "s:pdf-tools": "1",
      "s:broken": "nope",
      v: "1",
    });
    expect(await scopes.read("channel", address)).toEqual({ keys: { recall: true } });
    expect(await scopes.readSkills("channel", address)).toEqual({ "pdf-tools": true });
    expect(logger.messages).toHaveLength(5);
    expect(logger.messages.join("\n")).toMatch(
      /d:fetch_url.*"true" is not "1" \(on\), "0" \(off\) or "ask"/,
    );
    await scopes.read("channel", address);
    expect(logger.messages).toHaveLength(5);
  });

  it("keeps serving a skill toggle's last good value when its field is damaged", async () => {
    const logger = recordingLogger();
    const { scopes, keys } = createStore(db.redis, { prefix: db.prefix, logger });
    await scopes.applySkill("workspace", address, "meeting-notes", "off");
    expect(await scopes.readSkills("workspace", address)).toEqual({ "meeting-notes": false });
    await db.redis.hset(keys.scope("workspace", address), "s:meeting-notes", "maybe");
    expect(await scopes.readSkills("workspace", address)).toEqual({ "meeting-notes": false });
    expect((await scopes.readStack(address)).skills.workspace).toEqual({ "meeting-notes": false });
    expect(logger.messages.join("\n")).toMatch(/keeping the last good value \(off\)/);
  });

  it("reads a key of the wrong type as an empty layer, with a warning", async () => {
    const logger = recordingLogger();
    const { scopes, keys } = createStore(db.redis, { prefix: db.prefix, logger });
    await db.redis.rpush(keys.scope("workspace", address), "x");
    expect(await scopes.read("workspace", address)).toEqual({});
    expect(logger.messages[0]).toMatch(/holds a list, not a hash/);
  });

  it("refuses bad input with an error naming it, writing nothing", async () => {
    const { scopes, keys } = createStore(db.redis, { prefix: db.prefix });
    await expect(
      scopes.apply("channel", address, { kind: "set", key: "no spaces", value: "on" }),
    ).rejects.toThrow(/"no spaces" is not a tool key/);
    await expect(
      scopes.apply("channel", address, { kind: "mode", mode: "pi" as never }),
    ).rejects.toThrow(StoreInputError);
    await expect(
      scopes.apply("channel", address, { kind: "set", key: "recall", value: "asks" as never }),
    ).rejects.toThrow('Cannot set recall to "asks": use "on", "off", "ask" or "follow".');
    await expect(scopes.applySkill("channel", address, "../etc", "on")).rejects.toThrow(
      /not a skill name/,
    );
    expect(await db.redis.exists(keys.scope("channel", address))).toBe(0);
  });
});
