import { describe, it } from "vitest";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import {
  type CommandDriver,
  configOf,
  type DriverOptions,
  itAnswersTheChatCommands,
  type Persona,
  skillOverTheLimitIsTooLong,
} from "../support/command-scenarios.ts";
import {
  botPosts,
  HUMAN,
  interact,
  MANAGE_SERVER,
  shown,
  startDiscordBot,
} from "../support/discord.ts";
import { scheduleAddFromChat } from "../support/schedule-scenarios.ts";

/** Someone the config makes an admin, writing to the bot in a DM. */
const ADMIN = "1000000000000000007";
const ADMIN_DM = "1300000000000000098";

const mention = (text: string) => `<@${FAKE_DISCORD.botUserId}> ${text}`;

/** The application command a typed line stands for: `/model big-model channel`. */
function commandData(text: string): Record<string, unknown> {
  const [name = "", ...words] = text.slice(1).split(/\s+/);
  const option = (key: string, value: string | undefined) =>
    value === undefined ? [] : [{ type: 3, name: key, value }];
  const options =
    name === "new"
      ? words.includes("--all")
        ? [{ type: 5, name: "all", value: true }]
        : []
      : name === "model"
        ? [...option("name", words[0]), ...option("scope", words[1])]
        : name === "queue"
          ? [...option("mode", words[0]), ...option("scope", words[1])]
          : [];
  return { id: "1500000000000000010", name, type: 1, options };
}

/**
 * The Discord bot on the fake gateway and REST API. Typed: the member
 * mentions the bot in the guild channel, the admin (by the config) writes in
 * a DM. Application commands: both are the same person in the guild
 * channel, the admin with Manage Server; an answer is the edited deferred reply.
 */
function discordDriver(commands: "typed" | "slash") {
  return async (options: DriverOptions): Promise<CommandDriver> => {
    const config = configOf(options.config, `discord:${ADMIN}`);
    const s = await startDiscordBot({
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.skills ? { skills: options.skills } : {}),
      fake: { users: { [HUMAN]: { username: "ada" }, [ADMIN]: { username: "root" } } },
      pipeline: { config, model: "fake-model" },
      // The gate reads the same config as the commands, as in a running bot.
      config,
      runtime: (base) => ({
        ...base,
        sources: { ...base.sources, config },
        permissions: () => config().permissions,
        ...(options.stopTurn ? { stopTurn: options.stopTurn } : {}),
      }),
    });
    const { discord } = s;
    const inDm = (who: Persona) => commands === "typed" && who === "admin";
    const channelOf = (who: Persona) => (inDm(who) ? ADMIN_DM : FAKE_DISCORD.channelId);
    const answers: Record<Persona, string[]> = { member: [], admin: [] };
    return {
      pipe: s.pipe,
      address: (who) => ({
        platform: "discord",
        workspace: inDm(who) ? "dm" : FAKE_DISCORD.guildId,
        channel: channelOf(who),
        conversation: channelOf(who),
      }),
      say: async (text, who = "member") => {
        if (commands === "slash" && text.startsWith("/")) {
          const token = interact(discord, {
            type: 2,
            data: commandData(text),
            permissions: who === "admin" ? MANAGE_SERVER : "0",
          });
          answers[who].push((await until(() => shown(discord, token))).content);
          return;
        }
        const typed = text.startsWith("/") ? `!${text.slice(1)}` : text;
        discord.messageCreate(
          inDm(who)
            ? { channelId: ADMIN_DM, authorId: ADMIN, content: typed }
            : { channelId: FAKE_DISCORD.channelId, authorId: HUMAN, content: mention(typed) },
        );
      },
      said: (who = "member") => {
        // The fake keeps deferred replies as channel messages too: the other person's are not shown here.
        const theirs = new Set(answers[who === "admin" ? "member" : "admin"]);
        const posts = botPosts(discord, channelOf(who)).map((m) => m.content);
        return [...posts.filter((text) => !theirs.has(text)), ...answers[who]];
      },
      close: () => s.close(),
    };
  };
}

for (const commands of ["typed", "slash"] as const) {
  const start = discordDriver(commands);
  describe(`chat commands in Discord, ${commands === "typed" ? "typed in messages" : "as application commands"}`, () => {
    itAnswersTheChatCommands(start, "channel");
  });
}

describe("/skill over the limit in Discord, typed in a message", () => {
  it("answers a /skill whose instructions carry the request over the limit as too long", () =>
    skillOverTheLimitIsTooLong(discordDriver("typed")));
});

describe("/schedule in Discord, typed in messages", () => {
  it("refuses a member a schedule at the guild channel's top level and the workspace's list; makes, lists and removes an admin's in a DM", () =>
    scheduleAddFromChat(discordDriver("typed"), { refusedTarget: "" }));
});
