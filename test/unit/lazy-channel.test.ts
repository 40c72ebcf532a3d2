import { describe, expect, it } from "vitest";
import type { Channel, ChannelRuntime, WorkerParts } from "../../src/ingress/channel.ts";
import { DISCORD_TRAITS } from "../../src/platforms/discord/traits.ts";
import { ChannelLoadError, lazyChannel } from "../../src/platforms/lazy-channel.ts";
import { SLACK_TRAITS } from "../../src/platforms/slack/traits.ts";
import type { Outbound } from "../../src/ports/outbound.ts";

const target = { platform: "slack", workspace: "T1", channel: "C1", conversation: "C1" };

/** A platform channel that records what it was told, in order. */
function recordingChannel(log: string[]): Channel {
  const outbound: Outbound = {
    maxLength: SLACK_TRAITS.maxLength,
    canEdit: true,
    post: async (_target, text) => {
      log.push(`post ${text}`);
      return "ref-1";
    },
    edit: async (_target, ref, text) => void log.push(`edit ${ref} ${text}`),
    typing: async () => void log.push("typing"),
    upload: async (_target, file) => {
      log.push(`upload ${file.name}`);
      return "file-1";
    },
    files: { locate: async () => ({ kind: "bytes", bytes: new Uint8Array([1]) }) },
  };
  return {
    platform: "slack",
    outbound,
    directory: {
      find: async (_workspace, ref) => ({ channel: ref, name: `#${ref}` }),
      mayPost: async () => ({ allowed: true }),
      mention: (user) => `<@${user}>`,
    },
    start: async () => void log.push("start"),
    stop: async () => void log.push("stop"),
    prepareWorker: () => void log.push("prepareWorker"),
    countFailuresWith: (count) => {
      log.push("countFailuresWith");
      count("gateway");
    },
  };
}

describe("a platform channel loaded when it is first needed", () => {
  it("is not loaded until the bot starts it or uses its outbound", async () => {
    let loads = 0;
    const log: string[] = [];
    const channel = lazyChannel(SLACK_TRAITS, async () => {
      loads++;
      return recordingChannel(log);
    });
    expect(channel.platform).toBe("slack");
    expect(channel.outbound.maxLength).toBe(3_500);
    expect(channel.directory?.mention("U1")).toBe("<@U1>");
    expect(loads).toBe(0);
    await channel.start({} as ChannelRuntime);
    await channel.outbound.post(target, "hi", { idempotencyKey: "k" });
    expect(loads).toBe(1);
    expect(log).toEqual(["start", "post hi"]);
  });

  it("readies a worker's outbound before its first post, and counts failures where the bot asked", async () => {
    const log: string[] = [];
    const counted: string[] = [];
    const channel = lazyChannel(SLACK_TRAITS, async () => recordingChannel(log));
    channel.countFailuresWith?.((stage) => counted.push(stage));
    channel.prepareWorker?.({ logger: { warn: () => {} } } as unknown as WorkerParts);
    expect(await channel.outbound.post(target, "answer", { idempotencyKey: "k" })).toBe("ref-1");
    await channel.outbound.edit(target, "ref-1", "answer, longer");
    expect(await channel.outbound.upload?.(target, file(), { idempotencyKey: "f" })).toBe("file-1");
    expect(await channel.directory?.find("T1", "general")).toEqual({
      channel: "general",
      name: "#general",
    });
    expect(log).toEqual([
      "countFailuresWith",
      "prepareWorker",
      "post answer",
      "edit ref-1 answer, longer",
      "upload chart.png",
    ]);
    expect(counted).toEqual(["gateway"]);
  });

  it("says which SDK failed to load and how to fix it, and tries again at the next use", async () => {
    let attempts = 0;
    const channel = lazyChannel(SLACK_TRAITS, async () => {
      attempts++;
      if (attempts === 1) throw new Error("Cannot find package '@slack/bolt'");
      return recordingChannel([]);
    });
    const start = channel.start({} as ChannelRuntime);
    await expect(start).rejects.toThrow(ChannelLoadError);
    await expect(start).rejects.toThrow(
      /The slack channel could not be loaded \(it needs @slack\/bolt and @slack\/web-api\): Cannot find package '@slack\/bolt'\. Reinstall/,
    );
    await expect(channel.outbound.typing(target)).resolves.toBeUndefined();
  });

  it("logs a worker's failed load instead of leaving it unhandled", async () => {
    const warnings: string[] = [];
    const channel = lazyChannel(SLACK_TRAITS, async () => {
      throw new Error("no such module");
    });
    channel.prepareWorker?.({
      logger: { warn: (message: string) => warnings.push(message) },
    } as unknown as WorkerParts);
    await expect(channel.outbound.typing(target)).rejects.toThrow(ChannelLoadError);
    expect(warnings).toEqual([expect.stringMatching(/slack channel could not be loaded/)]);
    await expect(channel.stop()).resolves.toBeUndefined();
  });
});

function file() {
  return { name: "chart.png", type: "image/png", bytes: new Uint8Array([1, 2]) };
}

describe("how a lazy channel shows a turn's activity before its SDK loads", () => {
  it("offers the indicator or the status line its traits name, and forwards them to the loaded outbound", async () => {
    const log: string[] = [];
    const loaded = recordingChannel(log);
    const outbound: Outbound = {
      ...loaded.outbound,
      showActivity: async (_target, activity) => void log.push(`show ${activity?.kind ?? "none"}`),
      remove: async (_target, ref) => void log.push(`remove ${ref}`),
    };
    const slack = lazyChannel(SLACK_TRAITS, async () => ({ ...loaded, outbound }));
    expect(slack.outbound.activityEveryMs).toBe(250);
    expect(slack.outbound.activityLine).toBeUndefined();
    await slack.outbound.showActivity?.(target, { kind: "thinking" });
    const discord = lazyChannel(DISCORD_TRAITS, async () => ({ ...loaded, outbound }));
    expect(discord.outbound.showActivity).toBeUndefined();
    expect(discord.outbound.activityLine).toBe(true);
    await discord.outbound.remove?.(target, "m1");
    expect(log).toEqual(["show thinking", "remove m1"]);
  });
});
