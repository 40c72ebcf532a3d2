import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  accessPolicyFor,
  ConfigError,
  formatAccessEntry,
  limitsFor,
  parseAccessEntry,
  parseRate,
} from "../../src/core/config/index.ts";
import { MAX_RATE_COUNT, MAX_RATE_WINDOW_MS } from "../../src/core/config/rate-spec.ts";
import { duration } from "../../src/ingress/access/refusals.ts";
import { parseConfig, reloadConfig } from "../../src/platforms/config.ts";

const FILE = "switchyard.yaml";
const silent = { warn: () => {} };

const platform = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
const id = fc.stringMatching(/^[A-Za-z0-9._@-]{1,20}$/);
const kindWord = fc.constantFrom("user", "workspace", "team", "guild", "channel", "chat");

/** Strings near the grammar: pieces of valid entries, colons, junk. */
const nearEntry = fc
  .array(fc.oneof(platform, id, kindWord, fc.constantFrom(":", "::", " ", "", "-100", "T0123")), {
    maxLength: 6,
  })
  .map((parts) => parts.join(""));

describe("the access entry grammar", () => {
  it("reads every string as an entry or a problem that names it and the fix, never a throw", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), nearEntry), (text) => {
        const reading = parseAccessEntry(text);
        if (reading.ok) {
          expect(text.split(":").length).toBeGreaterThanOrEqual(2);
          expect(text.startsWith(`${reading.entry.platform}:`)).toBe(true);
          expect(text.endsWith(`:${reading.entry.id}`)).toBe(true);
        } else {
          expect(reading.problem).toContain("Write platform:id or platform:kind:id");
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("reads its own canonical spelling back to the same entry", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), nearEntry), (text) => {
        const reading = parseAccessEntry(text);
        if (!reading.ok) return;
        expect(parseAccessEntry(formatAccessEntry(reading.entry))).toEqual(reading);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads platform:kind:id as that kind, and a bare id by what the platform's ids say", () => {
    fc.assert(
      fc.property(platform, kindWord, id, (p, k, i) => {
        const kind = {
          user: "user",
          workspace: "workspace",
          team: "workspace",
          guild: "workspace",
        }[k as "user"];
        const reading = parseAccessEntry(`${p}:${k}:${i}`);
        expect(reading).toEqual({
          ok: true,
          entry: { platform: p, kind: kind ?? "channel", id: i },
        });
      }),
    );
    expect(parseAccessEntry("telegram:123")).toMatchObject({ entry: { kind: "user" } });
    expect(parseAccessEntry("slack:T0123")).toMatchObject({ entry: { kind: "workspace" } });
    expect(parseAccessEntry("slack:C0123")).toMatchObject({ entry: { kind: "channel" } });
    expect(parseAccessEntry("slack:U0123")).toMatchObject({ entry: { kind: "user" } });
    expect(parseAccessEntry("telegram:chat:-1001234")).toMatchObject({
      entry: { kind: "channel", id: "-1001234" },
    });
    expect(parseAccessEntry("discord:server:1").ok).toBe(false);
    expect(parseAccessEntry("Slack:U1").ok).toBe(false);
    expect(parseAccessEntry("slack:").ok).toBe(false);
  });
});

const unit = fc.constantFrom(["s", 1_000], ["m", 60_000], ["h", 3_600_000], ["d", 86_400_000]);

describe("the rate grammar N/<window>", () => {
  it("reads every written rate to its count and window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_RATE_COUNT }),
        fc.option(fc.integer({ min: 1, max: 99_999 }), { nil: undefined }),
        unit,
        (count, length, [u, ms]) => {
          const text = `${count}/${length ?? ""}${u}`;
          const windowMs = (length ?? 1) * (ms as number);
          const reading = parseRate(text);
          if (windowMs > MAX_RATE_WINDOW_MS) {
            expect(reading).toEqual({ ok: false, problem: expect.stringContaining("31 days") });
          } else {
            expect(reading).toEqual({ ok: true, rate: { count, windowMs, text } });
          }
        },
      ),
    );
  });

  it("refuses anything else with the form to write, never a throw", () => {
    const near = fc
      .array(fc.constantFrom("20", "/", "10", "m", "h", " ", "0", "1.5", "per", "M", "-", "ms"), {
        maxLength: 6,
      })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(fc.oneof(fc.string(), near), (text) => {
        const reading = parseRate(text);
        if (reading.ok) {
          expect(text).toMatch(/^[1-9][0-9]*\/([1-9][0-9]*)?[smhd]$/);
          expect(reading.rate.count).toBeGreaterThan(0);
          expect(reading.rate.windowMs).toBeGreaterThan(0);
        } else {
          expect(reading.problem.length).toBeGreaterThan(10);
        }
      }),
      { numRuns: 3000 },
    );
    for (const bad of [
      "20 / 10m",
      "20/10M",
      "0/m",
      "020/m",
      "20/0m",
      "20/10",
      "20/1.5h",
      "20/10ms",
    ]) {
      expect(parseRate(bad).ok, bad).toBe(false);
    }
  });
});

/** Values shaped like the sections, so the fuzzer reaches every key. */
const rateLike = fc.oneof(
  fc.constantFrom("20/10m", "600/h", "off", "5/30s", "20 per minute", "0/m", "1/32d"),
  fc.boolean(),
  fc.integer(),
  fc.string(),
);
const entryLike = fc.oneof(
  fc.constantFrom(
    "telegram:123",
    "slack:T0123",
    "discord:guild:456",
    "telegram:chat:-100",
    "nobody",
  ),
  fc.string(),
  fc.integer(),
);
const rules = fc.record(
  {
    dm: fc.oneof(fc.constantFrom("open", "allowlist", "pairing", "closed", "maybe"), fc.integer()),
    groups: fc.constantFrom("open", "allowlist", "closed", "pairing"),
    allow: fc.oneof(fc.array(entryLike, { maxLength: 4 }), entryLike),
    on_refused_group: fc.constantFrom("leave", "silent", "stay"),
    typo: fc.string(),
  },
  { requiredKeys: [] },
);
const scopeKey = fc.oneof(fc.constantFrom("slack:T0123", "telegram:-100", "nope"), fc.string());
const accessLike = fc.oneof(
  rules.chain((r) =>
    fc
      .record(
        {
          workspaces: fc.dictionary(scopeKey, rules, { maxKeys: 2 }),
          channels: fc.dictionary(scopeKey, rules, { maxKeys: 2 }),
        },
        { requiredKeys: [] },
      )
      .map((s) => ({ ...r, ...s })),
  ),
  fc.anything(),
);
const limitRules = fc.record(
  { user: rateLike, conversation: rateLike, workspace: rateLike, per: rateLike },
  { requiredKeys: [] },
);
const limitsLike = fc.oneof(
  limitRules.chain((r) =>
    fc
      .record(
        { workspaces: fc.dictionary(scopeKey, limitRules, { maxKeys: 2 }) },
        { requiredKeys: [] },
      )
      .map((s) => ({ ...r, ...s })),
  ),
  fc.anything(),
);

describe("the access: and limits: sections", () => {
  it("read any value as a config, or a ConfigError naming the file, the key and a line in it", () => {
    fc.assert(
      fc.property(accessLike, limitsLike, (access, limits) => {
        const text = stringify({ tools: { current_time: "on" }, access, limits }) ?? "";
        try {
          const config = parseConfig(text, FILE);
          const where = { platform: "slack", workspace: "T0123", channel: "C1" };
          const policy = accessPolicyFor(config.access, where);
          expect(["open", "allowlist", "pairing", "closed"]).toContain(policy.dm);
          for (const rate of Object.values(limitsFor(config.limits, where))) {
            expect(rate?.count).toBeGreaterThan(0);
          }
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          expect(error.file).toBe(FILE);
          expect(error.key).toMatch(/^(access|limits)(\.|\[|$)/);
          if (error.line !== undefined) {
            expect(error.line).toBeGreaterThanOrEqual(1);
            expect(error.line).toBeLessThanOrEqual(text.split("\n").length);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it("keeps the last good config when a reload breaks either section", () => {
    const good = parseConfig("access:\n  dm: allowlist\nlimits:\n  user: 20/10m\n", FILE);
    for (const broken of [
      "access:\n  dm: allowlist\nlimits:\n  user: 20 a minute\n",
      "access:\n  dm: sometimes\nlimits:\n  user: 20/10m\n",
      "access:\n  allow: [telegram]\n",
    ]) {
      const result = reloadConfig(good, broken, FILE, silent);
      expect(result.ok).toBe(false);
      expect(result.config).toBe(good);
    }
  });

  it("names the file, key and line of a malformed limit, and says what to write", () => {
    const text =
      'tools:\n  current_time: on\nlimits:\n  workspaces:\n    "slack:T0123":\n      user: 20/10min\n';
    expect(() => parseConfig(text, FILE)).toThrow(
      'switchyard.yaml:6: limits.workspaces.slack:T0123.user: "20/10min" is not a rate. Write messages/window, e.g. 20/10m, 600/h or 5/30s (units s, m, h, d).',
    );
    expect(() =>
      parseConfig("access:\n  allow:\n    - slack:T1\n    - discord:server:1\n", FILE),
    ).toThrow(
      /^switchyard\.yaml:4: access\.allow\[1\]: "discord:server:1" names the kind "server"/,
    );
  });

  it("lets the deepest scope decide each policy and limit, and adds up the allow lists", () => {
    const config = parseConfig(
      [
        "access:",
        "  dm: pairing",
        "  allow: [telegram:1]",
        "  workspaces:",
        '    "slack:T1": { dm: closed, groups: allowlist, allow: [slack:C9] }',
        "  channels:",
        '    "slack:C2": { dm: open }',
        "limits:",
        "  user: 20/10m",
        "  workspace: 600/h",
        "  workspaces:",
        '    "slack:T1": { user: 50/10m }',
        "  channels:",
        '    "slack:C2": { user: off }',
        "",
      ].join("\n"),
      FILE,
    );
    const c1 = { platform: "slack", workspace: "T1", channel: "C1" };
    const c2 = { platform: "slack", workspace: "T1", channel: "C2" };
    expect(accessPolicyFor(config.access, c1)).toMatchObject({ dm: "closed", groups: "allowlist" });
    expect(accessPolicyFor(config.access, c1).allow.map(formatAccessEntry)).toEqual([
      "telegram:1",
      "slack:channel:C9",
    ]);
    expect(accessPolicyFor(config.access, c2).dm).toBe("open");
    expect(limitsFor(config.limits, c1).user?.text).toBe("50/10m");
    expect(limitsFor(config.limits, c2).user).toBeUndefined();
    expect(limitsFor(config.limits, c2).workspace?.text).toBe("600/h");
  });
});

describe("how long until a reset, in words", () => {
  it("rounds up within a unit and never says 60 of one", () => {
    expect(duration(500)).toBe("1 second");
    expect(duration(59_500)).toBe("1 minute");
    expect(duration(7 * 60_000 - 5_000)).toBe("7 minutes");
    expect(duration(3_599_000)).toBe("1 hour");
    expect(duration(86_399_000)).toBe("1 day");
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 * 86_400_000 }), (ms) => {
        const [n, word] = duration(ms).split(" ") as [string, string];
        const limit = { second: 60, minute: 60, hour: 24 }[word.replace(/s$/, "") as "second"];
        if (limit !== undefined) expect(Number(n)).toBeLessThan(limit);
        expect(Number(n)).toBeGreaterThanOrEqual(1);
      }),
    );
  });
});
