/**
 * Discord for a test: the fake Discord (REST and gateway on one port) and a
 * DiscordChannel logged in to it through discord.js, with a person's
 * messages, files and button presses dispatched over the gateway as Discord
 * sends them. Needs the `ws` package (the fake gateway's server) installed
 * beside Switchyard.
 *
 * @example
 * const discord = await startTestDiscord();
 * const bot = createBot({ channels: [discord.channel()], ... });
 * await bot.start();
 * await discord.say("hello"); // Ada, in her DM with the bot
 * discord.posts(); // what the bot posted
 */
import type { DiscordChannel } from "../platforms/discord/channel.ts";
import type { DiscordMessage, FakeDiscord } from "./fakes/discord-api.ts";
import { findControl } from "./find-control.ts";
import type { Control, PostWith, Said, TestPlatform, Where } from "./test-platform.ts";

/** The person who writes unless told: Ada, a member of the fake guild. */
export const TEST_DISCORD_USER = "1000000000000000002";

/** The fake guild's text channel, where `say(text, { channel: TEST_DISCORD_CHANNEL })` mentions the bot. */
export const TEST_DISCORD_CHANNEL = "1300000000000000001";

interface DiscordControl extends Control {
  readonly customId: string;
}

export interface TestDiscord extends TestPlatform {
  /** The fake Discord itself: every REST call, the gateway frames, the messages. */
  readonly api: FakeDiscord;
}

export async function startTestDiscord(): Promise<TestDiscord> {
  // Loaded here, so that Slack- and Telegram-only tests never need `ws`.
  const { startFakeDiscord, FAKE_DISCORD } = await import("./fakes/discord-api.ts");
  const api = await startFakeDiscord({ users: { [TEST_DISCORD_USER]: { username: "ada" } } });
  const { DiscordChannel } = await import("../platforms/discord/channel.ts");
  const channel: DiscordChannel = new DiscordChannel({ token: api.token, apiUrl: api.apiUrl });
  const bot = FAKE_DISCORD.botUserId;
  /** A person's DM channel with the bot: one per person, its id derived from theirs as the fake does. */
  const dmOf = (user: string) => `14${user.slice(2)}`;
  const write = (text: string, where: Where, extra?: Record<string, unknown>): Said => {
    const user = where.user ?? TEST_DISCORD_USER;
    const inGuild = where.channel !== undefined;
    const channelId = where.thread ?? where.channel ?? dmOf(user);
    const content = inGuild && where.mention !== false ? `<@${bot}> ${text}` : text;
    const message = api.messageCreate({
      channelId,
      authorId: user,
      content,
      ...(extra ? { extra } : {}),
    });
    return { platform: "discord", channel: channelId, thread: where.thread, id: message.id };
  };
  const discordPosts = (): DiscordPost[] =>
    api.messages.filter((m) => m.author.id === bot).map(postOf);
  return {
    platform: "discord",
    api,
    channel: () => channel,
    async say(text, where = {}) {
      return write(text, where);
    },
    async file(file, text = "", where = {}) {
      const attachment = api.addFile(
        file.bytes,
        file.name,
        file.type ?? "application/octet-stream",
      );
      return write(text, where, { attachments: [attachment] });
    },
    async click(target) {
      const { post, control } = findControl(discordPosts(), target);
      const message = api.messages.find((m) => m.id === post.id);
      api.dispatch("INTERACTION_CREATE", {
        ...interactionOf(target.user ?? TEST_DISCORD_USER, message, FAKE_DISCORD.applicationId),
        data: { custom_id: control.customId, component_type: 2 },
      });
    },
    posts: () => discordPosts(),
    // The bot stops its channel; this closes the fake.
    close: () => api.close(),
  };
}

type DiscordPost = PostWith<DiscordControl>;

function postOf(message: DiscordMessage): DiscordPost {
  return {
    platform: "discord",
    channel: message.channel_id,
    thread: undefined,
    id: message.id,
    text: message.content,
    controls: controlsOf(message.components),
  };
}

interface Row {
  components?: { type?: number; custom_id?: string; label?: string }[];
}

/** The buttons (component type 2) of a message's action rows. */
function controlsOf(rows: readonly unknown[]): DiscordControl[] {
  return (rows as Row[]).flatMap((row) =>
    (row.components ?? [])
      .filter((c) => c.type === 2 && c.custom_id)
      .map((c) => ({ label: c.label ?? "", customId: c.custom_id as string })),
  );
}

let interactions = 0;

/** A component click's INTERACTION_CREATE, as Discord sends it, on the bot's message. */
function interactionOf(user: string, message: DiscordMessage | undefined, applicationId: string) {
  interactions += 1;
  const person = {
    id: user,
    username: "ada",
    discriminator: "0",
    global_name: "Ada",
    avatar: null,
  };
  const where = message?.guild_id
    ? {
        guild_id: message.guild_id,
        member: {
          user: person,
          roles: [],
          permissions: "0",
          joined_at: new Date(0).toISOString(),
          deaf: false,
          mute: false,
          flags: 0,
        },
        context: 0,
      }
    : { user: person, context: 1 };
  return {
    id: `14${String(Date.now()).slice(-13)}${String(interactions).padStart(4, "0")}`.slice(0, 19),
    application_id: applicationId,
    type: 3,
    token: `itoken-${interactions}-${Math.random().toString(36).slice(2)}`,
    version: 1,
    channel_id: message?.channel_id,
    channel: { id: message?.channel_id, type: message?.guild_id ? 0 : 1 },
    app_permissions: "2248473465835073",
    locale: "en-US",
    entitlements: [],
    authorizing_integration_owners: { "0": message?.guild_id ?? "0" },
    message,
    ...where,
  };
}
