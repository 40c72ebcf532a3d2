import { describe, expect, it } from "vitest";
import { ChannelDefinitionError, type ChannelRuntime, defineChannel } from "../../src/index.ts";
import { quietOutbound, recordedChannel } from "../support/recorded-channel.ts";

// The ingress under test never reads it.
const runtime = {} as ChannelRuntime;

describe("defineChannel", () => {
  it("builds the outbound with the channel and the ingress only when it starts, as a worker needs", async () => {
    const { factory, log } = recordedChannel();
    const channel = factory({ name: "a" });
    expect(channel.platform).toBe("webhook");
    expect(factory.platform).toBe("webhook");
    expect(channel.outbound).toBe(quietOutbound);
    expect(channel.directory).toBeUndefined();
    expect(log).toEqual(["outbound a"]);
    await channel.start(runtime);
    await channel.stop();
    await channel.stop();
    expect(log).toEqual(["outbound a", "start a", "stop a"]);
  });

  it("refuses a platform name that cannot be the first part of a user id, saying what fits", () => {
    for (const platform of ["", "Matrix", "my:chat", "web hook", "9chat"]) {
      expect(() => recordedChannel({ platform })).toThrow(ChannelDefinitionError);
    }
    expect(() => recordedChannel({ platform: "my:chat" })).toThrow(
      /short lowercase name such as "matrix".*not "my:chat"/,
    );
  });

  it("checks the options when the channel is built, not when it starts", () => {
    const { factory } = recordedChannel({
      settings: (options) => {
        if (options.name === "") throw new Error("name must not be empty");
        return options;
      },
    });
    expect(() => factory({ name: "" })).toThrow("name must not be empty");
  });

  it("refuses a second start before a stop, and starts again after one", async () => {
    const { factory, log } = recordedChannel();
    const channel = factory({ name: "a" });
    await channel.start(runtime);
    await expect(channel.start(runtime)).rejects.toThrow(/started already: stop it/);
    await channel.stop();
    await channel.start(runtime);
    expect(log).toEqual(["outbound a", "start a", "stop a", "start a"]);
  });

  it("can start again after an ingress that failed to start", async () => {
    let fail = true;
    const channel = defineChannel({
      platform: "flaky",
      outbound: () => quietOutbound,
      ingress: () => ({
        start: async () => {
          if (fail) throw new Error("the platform said no");
        },
        stop: async () => {},
      }),
    })();
    await expect(channel.start(runtime)).rejects.toThrow("the platform said no");
    fail = false;
    await expect(channel.start(runtime)).resolves.toBeUndefined();
  });
});
