import type { ConversationAddress } from "../../src/core/conversation.ts";
import {
  FAKE_DISCORD,
  type FakeDiscord,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";
import type { ChaosPlatform } from "./chaos-scenario.ts";

/** A person in the chaos guild. */
export const DISCORD_PERSON = "1000000000000000777";
const CHANNELS = 16;
const channelOf = (c: number) => `13000000000000002${String(c).padStart(2, "0")}`;

export interface DiscordChaos extends ChaosPlatform {
  readonly fake: FakeDiscord;
  close(): Promise<void>;
}

/**
 * Discord for the chaos scenarios: the fake REST API and gateway, a guild
 * with a text channel per conversation, and a person who mentions the bot.
 * With `replays`, every MESSAGE_CREATE is dispatched again that many times
 * with the same message id, as a gateway replay after a resume does.
 */
export async function discordChaos({
  replays = 0,
}: {
  replays?: number;
} = {}): Promise<DiscordChaos> {
  const fake = await startFakeDiscord({
    users: { [DISCORD_PERSON]: { username: "chaos" } },
    guilds: [
      {
        id: FAKE_DISCORD.guildId,
        name: "Chaos",
        channels: Array.from({ length: CHANNELS }, (_, c) => ({
          id: channelOf(c),
          name: `chaos-${c}`,
        })),
      },
    ],
  });
  const opened = new Set<number>();
  return {
    name: "discord",
    fake,
    delayMs: 0,
    env: () => ({ DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl }),
    async send(conversation, tag) {
      if (conversation >= CHANNELS) throw new Error(`the chaos guild has ${CHANNELS} channels`);
      opened.add(conversation);
      const sent = fake.messageCreate({
        channelId: channelOf(conversation),
        authorId: DISCORD_PERSON,
        content: `<@${FAKE_DISCORD.botUserId}> ${tag}`,
      });
      for (let i = 0; i < replays; i++) {
        fake.messageCreate({
          channelId: channelOf(conversation),
          authorId: DISCORD_PERSON,
          content: sent.content,
          id: sent.id,
        });
      }
    },
    address: (conversation): ConversationAddress | undefined =>
      opened.has(conversation)
        ? {
            platform: "discord",
            workspace: FAKE_DISCORD.guildId,
            channel: channelOf(conversation),
            conversation: channelOf(conversation),
          }
        : undefined,
    shown: (conversation) =>
      fake.messages
        .filter(
          (m) => m.channel_id === channelOf(conversation) && m.author.id === FAKE_DISCORD.botUserId,
        )
        .map((m) => m.content),
    moments: () => ({}),
    busy: () => fake.calls.some((c) => c.status === undefined),
    orphanedPosts: () => 0,
    close: () => fake.close(),
  };
}
