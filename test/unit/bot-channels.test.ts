import { describe, expect, it } from "vitest";
import { ConsoleChannel } from "../../src/platforms/terminal/console-channel.ts";
import { channelsFor } from "../../src/runtime/bot-channels.ts";
import { StartOptionError } from "../../src/runtime/errors.ts";
import { MemoryChannel } from "../support/memory-channel.ts";

describe("the channels a bot runs", () => {
  it("is the console when none are given to a bot that runs everything, and none for a worker", () => {
    expect(channelsFor(undefined, [], "all")[0]).toBeInstanceOf(ConsoleChannel);
    expect(channelsFor(undefined, [], "worker")).toEqual([]);
    expect(channelsFor([], [], "all")).toEqual([]);
  });

  it("refuses an ingress with no channel, naming the variables and options that give it one", () => {
    for (const given of [undefined, []]) {
      const ingress = () => channelsFor(given, [], "ingress");
      expect(ingress).toThrow(StartOptionError);
      expect(ingress).toThrow(/SLACK_BOT_TOKEN.*DISCORD_TOKEN or TELEGRAM_BOT_TOKEN.*channels:/);
    }
    const fromPlugin = new MemoryChannel();
    expect(channelsFor(undefined, [{ channels: [fromPlugin] }], "ingress")).toEqual([fromPlugin]);
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
