import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelLimitsFromEnv, providerFromEnv, StartOptionError } from "../../src/cli/platforms.ts";
import {
  DEFAULT_MODEL_LIMITS,
  MODEL_LIMIT_NAMES,
  MODEL_LIMIT_RULES,
} from "../../src/core/config/model-section.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { nestedDeeperThan } from "../../src/providers/tool-call-limits.ts";

const FILE = "switchyard.yaml";
const logger = { warn: () => {} };

function startError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof StartOptionError) return error.message;
    throw error;
  }
  return "";
}

describe("the model: section", () => {
  it("defaults to 60 s to start, 30 s of silence, 5 minutes per call and capped replies", () => {
    expect(parseConfig("", FILE).model).toEqual({ ...DEFAULT_MODEL_LIMITS, vision: false });
    expect(DEFAULT_MODEL_LIMITS).toEqual({
      firstByteMs: 60_000,
      idleMs: 30_000,
      callMs: 300_000,
      maxAnswerChars: 40_000,
      maxToolCallChars: 100_000,
      maxToolCalls: 32,
    });
  });

  it("reads every key, keeping the defaults of those left out", () => {
    const config = parseConfig("model:\n  first_byte_ms: 120000\n  max_tool_calls: 8\n", FILE);
    expect(config.model).toEqual({
      ...DEFAULT_MODEL_LIMITS,
      firstByteMs: 120_000,
      maxToolCalls: 8,
      vision: false,
    });
  });

  it("says what is wrong with a value and where", () => {
    expect(() => parseConfig("model:\n  idle_ms: 30s\n", FILE)).toThrow(
      'switchyard.yaml:2: model.idle_ms: expected a whole number of milliseconds, found "30s".',
    );
    expect(() => parseConfig("model:\n  call_ms: 0\n", FILE)).toThrow(
      "switchyard.yaml:2: model.call_ms: 0 must be a whole number of milliseconds from 100 to 3600000, e.g. 300000.",
    );
    expect(() => parseConfig("model:\n  timeout: 5\n", FILE)).toThrow(
      /unknown key "timeout". The model section takes first_byte_ms:, idle_ms:, call_ms:, max_answer_chars:, max_tool_call_chars:, max_tool_calls:/,
    );
    expect(() => parseConfig("model: gpt-4.1\n", FILE)).toThrow(/expected a map, found "gpt-4.1"/);
  });
});

describe("the SWITCHYARD_MODEL_* variables", () => {
  it("read each limit, leaving unset ones to the config file", () => {
    expect(
      modelLimitsFromEnv({
        SWITCHYARD_MODEL_FIRST_BYTE_MS: "90000",
        SWITCHYARD_MODEL_IDLE_MS: " 15000 ",
        SWITCHYARD_MODEL_CALL_MS: "",
        SWITCHYARD_MODEL_MAX_TOOL_CALLS: "4",
      }),
    ).toEqual({ firstByteMs: 90_000, idleMs: 15_000, maxToolCalls: 4 });
  });

  it("refuse a bad value at startup, naming the variable and the fix", () => {
    expect(startError(() => modelLimitsFromEnv({ SWITCHYARD_MODEL_IDLE_MS: "30s" }))).toBe(
      'SWITCHYARD_MODEL_IDLE_MS must be a whole number of milliseconds from 100 to 3600000, e.g. 30000, not "30s". Fix it, or unset it to use model.idle_ms from the config file (default 30000).',
    );
    expect(startError(() => modelLimitsFromEnv({ SWITCHYARD_MODEL_MAX_TOOL_CALLS: "0" }))).toMatch(
      /^SWITCHYARD_MODEL_MAX_TOOL_CALLS must be a whole number of tool calls from 1 to 1000/,
    );
  });

  it("are checked even when no model is configured", () => {
    expect(startError(() => providerFromEnv({ SWITCHYARD_MODEL_CALL_MS: "-1" }, logger))).toMatch(
      /^SWITCHYARD_MODEL_CALL_MS must be a whole number/,
    );
  });

  it("accept exactly the values the config file accepts", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MODEL_LIMIT_NAMES),
        fc.oneof(fc.integer({ min: -10, max: 6_000_000 }), fc.double()),
        (name, value) => {
          const rule = MODEL_LIMIT_RULES[name];
          const fromEnv = () => modelLimitsFromEnv({ [rule.env]: String(value) });
          const fromFile = () => parseConfig(`model:\n  ${rule.key}: ${value}\n`, FILE);
          const envOk = startError(fromEnv) === "";
          let fileOk = true;
          try {
            fromFile();
          } catch {
            fileOk = false;
          }
          expect(envOk).toBe(fileOk);
          if (envOk) expect(fromEnv()[name]).toBe(fromFile().model[name]);
        },
      ),
    );
  });
});

describe("nestedDeeperThan", () => {
  it("agrees with the depth of any JSON value, whatever its strings hold", () => {
    const depth = (value: unknown): number =>
      typeof value === "object" && value !== null
        ? 1 + Math.max(0, ...Object.values(value).map(depth))
        : 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat(10), (value, limit) => {
        expect(nestedDeeperThan(JSON.stringify(value), limit)).toBe(depth(value) > limit);
      }),
    );
  });
});
