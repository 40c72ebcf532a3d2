import { describe, expect, it } from "vitest";
import {
  type ChannelDefinition,
  ChannelDefinitionError,
  type ChannelRuntime,
  defineChannel,
  type Outbound,
} from "../../src/index.ts";

const outbound: Outbound = {
  maxLength: 1_000,
  canEdit: false,
  post: async () => "1",
  edit: async () => {},
  typing: async () => {},
};

/** What the channel did, in order. */
function recorded(overrides: Partial<ChannelDefinition<{ name: string }>> = {}) {
  const log: string[] = [];
  const factory = defineChannel<{ name: string }>({
    platform: "webhook",
    outbound: ({ name }) => {
      log.push(`outbound ${name}`);
      return outbound;
    },
    ingress: ({ settings }) => ({
      start: async () => void log.push(`start ${settings.name}`),
      stop: async () => void log.push(`stop ${settings.name}`),
    }),
    ...overrides,
  });
  return { factory, log };
}

// The ingress under test never reads it.
const runtime = {} as ChannelRuntime;

describe("defineChannel", () => {
  it("builds the outbound with the channel and the ingress only when it starts, as a worker needs", async () => {
    const { factory, log } = recorded();
    const channel = factory({ name: "a" });
    expect(channel.platform).toBe("webhook");
    expect(factory.platform).toBe("webhook");
    expect(channel.outbound).toBe(outbound);
    expect(channel.directory).toBeUndefined();
    expect(log).toEqual(["outbound a"]);
    await channel.start(runtime);
    await channel.stop();
    await channel.stop();
    expect(log).toEqual(["outbound a", "start a", "stop a"]);
  });

  it("refuses a platform name that cannot be the first part of a user id, saying what fits", () => {
    for (const platform of ["", "Matrix", "my:chat", "web hook", "9chat"]) {
      expect(() => recorded({ platform })).toThrow(ChannelDefinitionError);
    }
    expect(() => recorded({ platform: "my:chat" })).toThrow(
      /short lowercase name such as "matrix".*not "my:chat"/,
    );
  });

  it("checks the options when the channel is built, not when it starts", () => {
    const { factory } = recorded({
      settings: (options) => {
        if (options.name === "") throw new Error("name must not be empty");
        return options;
      },
    });
    expect(() => factory({ name: "" })).toThrow("name must not be empty");
  });

  it("refuses a second start before a stop, and starts again after one", async () => {
    const { factory, log } = recorded();
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
      outbound: () => outbound,
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
