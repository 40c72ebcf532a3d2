import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { z } from "zod";
import { renderKeyPath } from "../../src/core/config/errors.ts";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { problemsOf } from "../../src/core/config/problems.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import {
  DEFAULT_DISCORD,
  type DiscordConfig,
  discordSection,
} from "../../src/platforms/discord/config-section.ts";
import { DiscordEnvError, discordOptionsFromEnv } from "../../src/platforms/discord/settings.ts";

/** The section read from YAML as the config loader reads a file: "key: problem" on failure. */
function read(yaml: string): DiscordConfig | string {
  const raw = parseDocument(yaml).toJS() as { discord?: unknown };
  const parsed = z.object({ discord: discordSection }).safeParse(raw, { reportInput: true });
  if (parsed.success) return parsed.data.discord;
  const [first] = parsed.error.issues.flatMap((issue) => problemsOf(issue));
  return `${renderKeyPath(first?.path ?? [])}: ${first?.problem}`;
}

describe("the discord: config section", () => {
  it("defaults to a conversation per thread, guild commands and no bots", () => {
    expect(read("discord: {}\n")).toEqual(DEFAULT_DISCORD);
    expect(DEFAULT_DISCORD).toEqual({
      conversation: "thread",
      channels: {},
      answerBots: false,
      commands: "guild",
    });
  });

  it("reads every key, with channel ids quoted or as <#id>", () => {
    const yaml = [
      "discord:",
      "  conversation: channel",
      "  channels:",
      '    "1300000000000000001": { conversation: thread }',
      '    "<#1300000000000000002>": { conversation: channel }',
      "  answer_bots: on",
      "  commands: global",
      "",
    ].join("\n");
    expect(read(yaml)).toEqual({
      conversation: "channel",
      channels: {
        "1300000000000000001": { conversation: "thread" },
        "1300000000000000002": { conversation: "channel" },
      },
      answerBots: true,
      commands: "global",
    });
  });

  it("catches a channel id YAML rounded because it was not quoted, and says to quote it", () => {
    expect(
      read("discord:\n  channels:\n    1300000000000000001: { conversation: channel }\n"),
    ).toBe(
      'discord.channels.1300000000000000000: 1300000000000000000 looks like a channel id YAML read as a number and rounded (Discord ids are longer than a YAML number keeps). Put the id in quotes, e.g. "1300000000000000001": { conversation: channel }, or write it as <#1300000000000000001>.',
    );
  });

  it("names the offending value and the fix", () => {
    expect(read("discord:\n  channels:\n    general: { conversation: channel }\n")).toMatch(
      /^discord\.channels\.general: "general" is not a Discord channel id\. Use the id in quotes/,
    );
    expect(read("discord:\n  conversation: threads\n")).toBe(
      'discord.conversation: expected thread or channel, found "threads". It says whether each thread is its own conversation (thread) or joins its channel\'s (channel).',
    );
    expect(read("discord:\n  commands: everywhere\n")).toMatch(
      /^discord\.commands: expected guild or global, found "everywhere"\./,
    );
    expect(read("discord:\n  token: abc\n")).toMatch(
      /^discord\.token: unknown key "token"\. .*the token stays in the environment: DISCORD_TOKEN/,
    );
    expect(
      read('discord:\n  channels:\n    "1300000000000000001": { session: channel }\n'),
    ).toMatch(/unknown key "session"\. A channel takes conversation:\./);
    expect(read("discord:\n  answer_bots: sometimes\n")).toBe(
      'discord.answer_bots: "sometimes" is not on/off/true/false. Write answer_bots: on or answer_bots: off.',
    );
  });
});

describe("the Discord channel's environment", () => {
  const config = () => EMPTY_CONFIG;

  it("is off without DISCORD_TOKEN", () => {
    expect(discordOptionsFromEnv({}, config)).toBeUndefined();
  });

  it("lets DISCORD_COMMANDS override the config, and reads the rest of the config live", () => {
    let current: SwitchyardConfig = {
      ...EMPTY_CONFIG,
      discord: { ...DEFAULT_DISCORD, answerBots: true },
    } as SwitchyardConfig;
    const options = discordOptionsFromEnv(
      {
        DISCORD_TOKEN: "t",
        DISCORD_COMMANDS: "global",
        DISCORD_APPLICATION_ID: "1100000000000000001",
      },
      () => current,
    );
    expect(options).toMatchObject({
      token: "t",
      commands: "global",
      applicationId: "1100000000000000001",
    });
    expect(options?.settings?.().answerBots).toBe(true);
    current = EMPTY_CONFIG;
    expect(options?.settings?.()).toEqual(DEFAULT_DISCORD);
  });

  it("stops at start on a DISCORD_COMMANDS or DISCORD_APPLICATION_ID it cannot use", () => {
    expect(() =>
      discordOptionsFromEnv({ DISCORD_TOKEN: "t", DISCORD_COMMANDS: "everywhere" }, config),
    ).toThrow(
      new DiscordEnvError(
        'DISCORD_COMMANDS takes guild (in each server, the default) or global (once, for every server and DM), not "everywhere".',
      ),
    );
    expect(() =>
      discordOptionsFromEnv({ DISCORD_TOKEN: "t", DISCORD_APPLICATION_ID: "my-bot" }, config),
    ).toThrow(
      /DISCORD_APPLICATION_ID must be the bot's application id, 17 to 20 digits .*not "my-bot"/,
    );
  });
});
