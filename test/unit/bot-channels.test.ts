import { describe, expect, it } from "vitest";
import { channelsFor } from "../../src/bot/bot-channels.ts";
import { StartOptionError } from "../../src/bot/errors.ts";
import { ConsoleChannel } from "../../src/channels/console/console-channel.ts";
import { MemoryChannel } from "../support/memory-channel.ts";

describe("the channels a bot runs", () => {
  it("is the console when none are given, except for a worker", () => {
    expect(channelsFor(undefined, [], "all")[0]).toBeInstanceOf(ConsoleChannel);
    expect(channelsFor(undefined, [], "ingress")[0]).toBeInstanceOf(ConsoleChannel);
    expect(channelsFor(undefined, [], "worker")).toEqual([]);
    expect(channelsFor([], [], "all")).toEqual([]);
  });

  it("is a plugin's channel instead of the console, after the channels given", () => {
    const given = new MemoryChannel();
    const fromPlugin = Object.assign(new MemoryChannel(), { platform: "other" });
    expect(channelsFor(undefined, [{ channels: [fromPlugin] }], "all")).toEqual([fromPlugin]);
    expect(channelsFor([given], [{ channels: [fromPlugin] }], "all")).toEqual([given, fromPlugin]);
  });

  it("refuses two channels of one platform, naming it", () => {
    const twice = () =>
      channelsFor([new MemoryChannel()], [{ channels: [new MemoryChannel()] }], "all");
    expect(twice).toThrow(StartOptionError);
    expect(twice).toThrow(/Two channels are both "memory"/);
  });
});
