import { describe, expect, it } from "vitest";
import {
  EMPTY_INTENT,
  type Intent,
  mount,
  pick,
  readIntent,
  reset,
  setKey,
  setMode,
  setToolset,
  setWebSearch,
  writeIntent,
} from "../../src/core/availability/intent.ts";

const intentWith = (fields: Partial<Intent>): Intent => ({ ...EMPTY_INTENT, ...fields });

describe("readIntent", () => {
  it("reads nothing stored as the empty intent", () => {
    expect(readIntent(undefined)).toEqual({ intent: EMPTY_INTENT, problems: [] });
    expect(readIntent(null)).toEqual({ intent: EMPTY_INTENT, problems: [] });
    expect(readIntent({})).toEqual({ intent: EMPTY_INTENT, problems: [] });
  });

  it("reads a stored value that is not an object as the empty intent, and says so", () => {
    expect(readIntent("on")).toEqual({
      intent: EMPTY_INTENT,
      problems: ["intent is a string, not an object"],
    });
    expect(readIntent([1, 2]).problems).toEqual(["intent is an array, not an object"]);
    expect(readIntent(42).problems).toEqual(["intent is a number, not an object"]);
  });

  it("reads an old partial intent with the missing fields as follow", () => {
    const { intent, problems } = readIntent({ master: "off" });
    expect(problems).toEqual([]);
    expect(intent).toEqual(intentWith({ master: "off" }));
  });

  it("reads an intent from an older version, ignoring fields it no longer knows", () => {
    const { intent, problems } = readIntent({ v: 0, toolset: "research", legacyTools: ["a", "b"] });
    expect(problems).toEqual([]);
    expect(intent).toEqual(intentWith({ toolset: "research" }));
    expect(intent.v).toBe(1);
  });

  it("follows a damaged field, keeps the others, and reports the damage by field", () => {
    const { intent, problems } = readIntent({
      master: "sideways",
      toolset: "research",
      decisions: { web_search: false },
      mode: "turbo",
      mounted: ["calendar_create"],
    });
    expect(intent).toEqual(
      intentWith({
        toolset: "research",
        decisions: { web_search: false },
        mounted: ["calendar_create"],
      }),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^master: /);
    expect(problems[1]).toMatch(/^mode: /);
  });

  it("reports malformed decisions, picks and mounts without throwing", () => {
    const { intent, problems } = readIntent({
      decisions: { "not a key!": true },
      picked: "web_search",
      mounted: [42],
      toolset: "",
      webSearch: true,
    });
    expect(intent).toEqual(EMPTY_INTENT);
    expect(problems.map((p) => p.split(":")[0])).toEqual([
      "toolset",
      "webSearch",
      "decisions",
      "picked",
      "mounted",
    ]);
  });

  it("normalizes what it reads: decisions sorted, picks sorted and unique, mounts unique in order", () => {
    const { intent } = readIntent({
      decisions: { zeta: true, alpha: false },
      picked: ["b", "a", "b"],
      mounted: ["y", "x", "y"],
    });
    expect(Object.keys(intent.decisions)).toEqual(["alpha", "zeta"]);
    expect(intent.picked).toEqual(["a", "b"]);
    expect(intent.mounted).toEqual(["y", "x"]);
  });
});

describe("writeIntent", () => {
  it("stores only the version for an intent that follows everything", () => {
    expect(writeIntent(EMPTY_INTENT)).toEqual({ v: 1 });
  });

  it("stores only the fields that differ from follow", () => {
    expect(writeIntent(intentWith({ master: "off", mode: "minimal" }))).toEqual({
      v: 1,
      master: "off",
      mode: "minimal",
    });
    expect(
      writeIntent(
        intentWith({
          toolset: "research",
          webSearch: "on",
          decisions: { "mcp:github": false },
          picked: ["a"],
          mounted: ["b"],
        }),
      ),
    ).toEqual({
      v: 1,
      toolset: "research",
      webSearch: "on",
      decisions: { "mcp:github": false },
      picked: ["a"],
      mounted: ["b"],
    });
  });

  it("stores the full toolset as its name, never as a list of tools", () => {
    expect(writeIntent(setToolset(EMPTY_INTENT, "full"))).toEqual({ v: 1, toolset: "full" });
  });
});

describe("intent changes", () => {
  it("switches a key on and off at conversation scope, and follow removes the decision", () => {
    const on = setKey(EMPTY_INTENT, "mcp:github", "on");
    expect(on.decisions).toEqual({ "mcp:github": true });
    const off = setKey(on, "web_search", "off");
    expect(off.decisions).toEqual({ "mcp:github": true, web_search: false });
    expect(setKey(off, "mcp:github", "follow").decisions).toEqual({ web_search: false });
  });

  it("treats the all key as the master switch", () => {
    const off = setKey(EMPTY_INTENT, "all", "off");
    expect(off.master).toBe("off");
    expect(off.decisions).toEqual({});
    expect(setKey(off, "all", "follow").master).toBe("follow");
  });

  it("returns a new intent and leaves the old one as it was", () => {
    const before = setKey(EMPTY_INTENT, "a", "on");
    const after = setKey(before, "b", "off");
    expect(before.decisions).toEqual({ a: true });
    expect(after).not.toBe(before);
    expect(EMPTY_INTENT.decisions).toEqual({});
    expect(pick(before, ["x"])).not.toBe(before);
    expect(before.picked).toBeNull();
  });

  it("resets one key to follow", () => {
    const intent = setKey(setKey(EMPTY_INTENT, "a", "on"), "all", "off");
    expect(reset(intent, "a").decisions).toEqual({});
    expect(reset(intent, "all").master).toBe("follow");
  });

  it("resets everything but the discovery mounts", () => {
    let intent = setKey(EMPTY_INTENT, "a", "on");
    intent = setMode(pick(setToolset(intent, "research"), ["x"]), "discover");
    intent = mount(setWebSearch(intent, "off"), ["calendar_create"]);
    expect(reset(intent)).toEqual(intentWith({ mounted: ["calendar_create"] }));
  });

  it("picks exactly the tools picked, sorted and without repeats", () => {
    const intent = pick(EMPTY_INTENT, ["web_search", "fetch_url", "web_search"]);
    expect(intent.picked).toEqual(["fetch_url", "web_search"]);
    expect(writeIntent(intent)).toEqual({ v: 1, picked: ["fetch_url", "web_search"] });
  });

  it("returns to the toolset on an empty pick", () => {
    expect(pick(pick(EMPTY_INTENT, ["a"]), []).picked).toBeNull();
  });

  it("drops a hand-picked list when a toolset is chosen", () => {
    const intent = setToolset(pick(EMPTY_INTENT, ["a"]), "research");
    expect(intent.picked).toBeNull();
    expect(intent.toolset).toBe("research");
    expect(setToolset(intent, null).toolset).toBeNull();
  });

  it("mounts in load order without repeats, and a mount of nothing new changes nothing", () => {
    const once = mount(EMPTY_INTENT, ["b", "a"]);
    expect(once.mounted).toEqual(["b", "a"]);
    const twice = mount(once, ["a", "c", "c"]);
    expect(twice.mounted).toEqual(["b", "a", "c"]);
    expect(mount(twice, ["a", "b"])).toBe(twice);
    expect(mount(twice, [])).toBe(twice);
  });

  it("sets and clears the load mode and the web-search layer", () => {
    expect(setMode(EMPTY_INTENT, "discover").mode).toBe("discover");
    expect(setMode(setMode(EMPTY_INTENT, "full"), null).mode).toBeNull();
    expect(setWebSearch(EMPTY_INTENT, "off").webSearch).toBe("off");
  });
});
