import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { numberFromEnv } from "../../src/cli/platforms.ts";

describe("a number setting read from the environment", () => {
  it("takes any positive number, and refuses zero, a negative or a non-number naming the variable", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (value) => {
        const read = () =>
          numberFromEnv({ SWITCHYARD_LEASE_MS: String(value) }, "SWITCHYARD_LEASE_MS", "leaseMs");
        if (value > 0 && Number.isFinite(value)) expect(read()).toEqual({ leaseMs: value });
        else expect(read).toThrow(`SWITCHYARD_LEASE_MS must be a positive number, not "${value}".`);
      }),
    );
    expect(() => numberFromEnv({ X: "soon" }, "X", "x")).toThrow(
      'X must be a positive number, not "soon".',
    );
    expect(numberFromEnv({}, "X", "x")).toEqual({});
  });

  it("takes 0 for a limit that 0 turns off (back-pressure), and says so when it refuses", () => {
    const name = "SWITCHYARD_MAX_EVENT_LOOP_DELAY_MS";
    const read = (raw: string) =>
      numberFromEnv({ [name]: raw }, name, "maxEventLoopDelayMs", { zeroTurnsOff: true });
    expect(read("0")).toEqual({ maxEventLoopDelayMs: 0 });
    expect(read("250")).toEqual({ maxEventLoopDelayMs: 250 });
    expect(() => read("-1")).toThrow(
      `${name} must be a positive number, or 0 to turn the limit off, not "-1".`,
    );
  });
});
