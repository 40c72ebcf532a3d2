import { z } from "zod";
import { describeValue } from "../../core/config/errors.ts";
import { flag } from "../../core/config/flag.ts";
import { platformSection } from "../../core/config/platform-section.ts";
import { sectionMap, strictMap } from "../../core/config/section-map.ts";
import { type AccountEntry, accountAgent, accountList, accountSecret } from "../account-list.ts";

/** Whether each thread is its own conversation, or a thread joins its channel's. */
export type DiscordConversation = "thread" | "channel";
/** Where `/tools` and `/skills` are registered: in each guild the bot is in, or once for all. */
export type DiscordCommandScope = "guild" | "global";

/**
 * How the Discord channel behaves (the token stays in the environment):
 *
 * ```yaml
 * discord:
 *   conversation: thread      # each thread its own conversation (default), or channel
 *   channels:
 *     "1300000000000000001": { conversation: channel }
 *   answer_bots: false        # answer other bots' messages too
 *   commands: guild           # or global (DISCORD_COMMANDS=global overrides it)
 *   accounts:                 # more bots in the same process, one gateway connection each
 *     - id: support
 *       token: ${DISCORD_SUPPORT_TOKEN}
 *       agent: support        # the agent it answers as (optional)
 * ```
 *
 * A message in a channel (not a thread) is always its channel's
 * conversation; the setting decides what a thread is.
 */
export interface DiscordConfig {
  readonly conversation: DiscordConversation;
  /** Per-channel overrides, by Discord channel id; a thread follows its parent channel's. */
  readonly channels: Readonly<Record<string, { readonly conversation: DiscordConversation }>>;
  readonly answerBots: boolean;
  readonly commands: DiscordCommandScope;
  /** More bots beside the one of DISCORD_TOKEN; unset: none. */
  readonly accounts?: readonly DiscordAccount[];
}

/** One more Discord bot: `discord.accounts`. */
export interface DiscordAccount extends AccountEntry {
  /** Its token, usually `${VARIABLE}`: filled from the environment when the bot starts. */
  readonly token: string;
}

export const DEFAULT_DISCORD: DiscordConfig = Object.freeze({
  conversation: "thread",
  channels: Object.freeze({}),
  answerBots: false,
  commands: "guild",
});

const SNOWFLAKE = /^\d{17,20}$/;
/** `<#id>`, as Discord's "Copy Link"/mention puts it: accepted so nobody has to strip it. */
const MENTION = /^<#(\d{17,20})>$/;

/**
 * YAML reads an unquoted id as a number, and a Discord id has more digits
 * than a double holds: `1300000000000000001` arrives as "1300000000000000000".
 * A digit string that is exactly a rounded double of that size is almost
 * certainly such an id; `<#id>` is the way out for the rare real id that
 * looks like one.
 */
function roundedByYaml(key: string): boolean {
  if (!/^\d+$/.test(key)) return false;
  const value = Number(key);
  return !Number.isSafeInteger(value) && String(value) === key;
}

const conversation = z.enum(["thread", "channel"], {
  error: (iss) =>
    `expected thread or channel, found ${describeValue(iss.input)}. It says whether each thread is its own conversation (thread) or joins its channel's (channel).`,
});

const channelId = z.string().superRefine((key, ctx) => {
  if (roundedByYaml(key)) {
    ctx.addIssue({
      code: "custom",
      message: `${key} looks like a channel id YAML read as a number and rounded (Discord ids are longer than a YAML number keeps). Put the id in quotes, e.g. "1300000000000000001": { conversation: channel }, or write it as <#1300000000000000001>.`,
    });
  } else if (!SNOWFLAKE.test(key) && !MENTION.test(key)) {
    ctx.addIssue({
      code: "custom",
      message: `${describeValue(key)} is not a Discord channel id. Use the id in quotes ("1300000000000000001"; Developer Mode, then right-click the channel, Copy Channel ID), not the name.`,
    });
  }
});

export const discordSection = sectionMap(
  "discord",
  {
    conversation: conversation.default("thread"),
    channels: z
      .record(
        channelId,
        strictMap(
          // Optional, so a misspelt key is reported as such rather than as a missing one.
          { conversation: conversation.optional() },
          {
            takes: "A channel takes conversation:.",
            notAMap: (found) => `expected a map such as { conversation: channel }, found ${found}.`,
          },
        ),
        {
          // A bad key's own issue says what is wrong with it (see channelId).
          error: (iss) =>
            iss.code === "invalid_key"
              ? (iss.issues[0]?.message ??
                `${describeValue(iss.input)} is not a Discord channel id. Use the id in quotes, not the name.`)
              : `expected a map of channel ids, found ${describeValue(iss.input)}.`,
        },
      )
      .default({}),
    // A flag, so `answer_bots: on` works as the error for a bad value says it should.
    answer_bots: flag.default(false),
    commands: z
      .enum(["guild", "global"], {
        error: (iss) =>
          `expected guild or global, found ${describeValue(iss.input)}. guild registers /tools and /skills in each server at start (they appear at once); global registers them once for every server and DM.`,
      })
      .default("guild"),
    accounts: accountList("discord", {
      token: accountSecret("the bot's token", "DISCORD_SUPPORT_TOKEN"),
      agent: accountAgent.optional(),
    }).optional(),
  },
  {
    takes:
      "conversation:, channels:, answer_bots:, commands: and accounts: (the token stays in the environment: DISCORD_TOKEN)",
  },
).transform(
  (d): DiscordConfig =>
    Object.freeze({
      conversation: d.conversation,
      // `<#id>` and `id` name the same channel; the channel looks ids up bare.
      channels: Object.freeze(
        Object.fromEntries(
          Object.entries(d.channels).flatMap(([key, { conversation }]) =>
            conversation === undefined
              ? []
              : [[MENTION.exec(key)?.[1] ?? key, Object.freeze({ conversation })]],
          ),
        ),
      ),
      answerBots: d.answer_bots,
      commands: d.commands,
      ...(d.accounts?.length
        ? {
            accounts: Object.freeze(
              d.accounts.map(
                (a): DiscordAccount =>
                  Object.freeze({
                    id: a.id,
                    token: a.token,
                    ...(a.agent !== undefined ? { agent: a.agent } : {}),
                  }),
              ),
            ),
          }
        : {}),
    }),
);

declare module "../../core/config/platform-section.ts" {
  interface PlatformConfigs {
    /** The Discord channel's behaviour; its token stays in the environment. */
    readonly discord: DiscordConfig;
  }
}

/** The `discord:` section, as the config format is handed it (src/platforms/config.ts). */
export const discordPlatformSection = platformSection("discord", discordSection, DEFAULT_DISCORD);
