import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { botPosts, HUMAN, startDiscordBot } from "../support/discord.ts";
import { channelContract, type DriverSetup } from "./channel-contract.ts";

const CHANNEL = FAKE_DISCORD.channelId;
const mention = (text: string) => `<@${FAKE_DISCORD.botUserId}> ${text}`;

/**
 * The real discord.js client on the fake gateway and REST API. The person
 * is a guild member without Manage Server, mentioning the bot in the guild
 * channel; commands are typed with `!`. A replay is the gateway sending the
 * same MESSAGE_CREATE again, as after a RESUME.
 */
async function startDiscord({ streamEditMs }: DriverSetup) {
  const s = await startDiscordBot({ streamEditMs });
  return {
    model: s.pipe.fake,
    maxLength: s.channel.outbound.maxLength,
    send: async (text: string) => {
      const typed = text.startsWith("/") ? `!${text.slice(1)}` : text;
      const message = s.discord.messageCreate({
        channelId: CHANNEL,
        authorId: HUMAN,
        content: mention(typed),
      });
      return async () => s.discord.dispatch("MESSAGE_CREATE", message);
    },
    said: () => botPosts(s.discord, CHANNEL).map((m) => m.content),
    edits: () =>
      s.discord.calls.filter(
        (c) => c.method === "PATCH" && c.path.startsWith(`/channels/${CHANNEL}/messages/`),
      ).length,
    close: () => s.close(),
  };
}

channelContract("Discord", startDiscord);
