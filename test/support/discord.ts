import { readdirSync, readFileSync } from "node:fs";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import type { AnyTool } from "../../src/core/tools/tool.ts";
import type { ChannelRuntime } from "../../src/ingress/channel.ts";
import { DiscordChannel, type DiscordChannelOptions } from "../../src/platforms/discord/channel.ts";
import type { SwitchyardOptions } from "../../src/runtime/app.ts";
import type { SkillLibrary } from "../../src/runtime/skill-folders.ts";
import {
  type DiscordMessage,
  FAKE_DISCORD,
  type FakeDiscord,
  type FakeDiscordOptions,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";
import { channelRuntime } from "./channels.ts";
import { bigTool, lookupTool, type Pipeline, startPipeline } from "./pipeline.ts";

/** The fake guild's channel as a conversation: where a message there is answered, and its keys live. */
export const CHANNEL_ADDRESS = {
  platform: "discord",
  workspace: FAKE_DISCORD.guildId,
  channel: FAKE_DISCORD.channelId,
  conversation: FAKE_DISCORD.channelId,
} as const;

/** A person in the fake guild. */
export const HUMAN = "1000000000000000002";
/** Manage Server, as an interaction's member permissions carry it. */
export const MANAGE_SERVER = String(1 << 5);

export interface DiscordSetup {
  readonly pipe: Pipeline;
  readonly discord: FakeDiscord;
  readonly channel: DiscordChannel;
  /** What the channel logged as warnings, "message {fields}". */
  readonly warnings: string[];
  /** The stage of every failure the channel survived and counted, in order. */
  readonly failures: string[];
  /** What the channel was started with: a second ingress process starts with the same. */
  readonly runtime: ChannelRuntime;
  close(): Promise<void>;
}

export interface DiscordSetupOptions {
  readonly tools?: AnyTool[];
  readonly skills?: SkillLibrary;
  /** Streams answers by edits at most this often; 0 (the default here) posts once. */
  readonly streamEditMs?: number;
  readonly channel?: Partial<Omit<DiscordChannelOptions, "token" | "apiUrl">>;
  readonly fake?: FakeDiscordOptions;
  /** Reuse a running fake Discord (a second start of the bot against the same server). */
  readonly discord?: FakeDiscord;
  readonly pipeline?: Partial<SwitchyardOptions> & { keepKeys?: boolean };
  /** Collects the channel's warnings here too (they outlive a start that fails). */
  readonly warnings?: string[];
  /** The config the ingress reads (access, limits, permissions); default: DMs open. */
  readonly config?: () => SwitchyardConfig;
  /** Changes what the channel's ingress gets, e.g. a store on a Redis that never answers. */
  readonly runtime?: (runtime: ChannelRuntime) => ChannelRuntime;
}

/**
 * The whole bot against the fake Discord: a pipeline with a worker, and a
 * real DiscordChannel (discord.js Client) logged in to the fake gateway.
 */
export async function startDiscordBot(options: DiscordSetupOptions = {}): Promise<DiscordSetup> {
  const tools = options.tools ?? [lookupTool, bigTool];
  const discord =
    options.discord ??
    (await startFakeDiscord({ users: { [HUMAN]: { username: "ada" } }, ...options.fake }));
  const channel = new DiscordChannel({
    token: discord.token,
    apiUrl: discord.apiUrl,
    ...options.channel,
  });
  const pipe = await startPipeline({
    tools,
    outbounds: { discord: channel.outbound },
    streamEditMs: options.streamEditMs ?? 0,
    ...(options.skills ? { skills: options.skills } : {}),
    ...options.pipeline,
  });
  await pipe.app.worker?.worker.waitUntilReady();
  const warnings = options.warnings ?? [];
  const failures: string[] = [];
  channel.countFailuresWith((stage) => failures.push(stage));
  const base = channelRuntime(pipe, tools, {
    ...(options.skills ? { skills: options.skills } : {}),
    ...(options.config ? { config: options.config } : {}),
    logger: {
      warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
    },
  });
  const runtime = options.runtime ? options.runtime(base) : base;
  const setup: DiscordSetup = {
    pipe,
    discord,
    channel,
    warnings,
    failures,
    runtime,
    async close() {
      await channel.stop();
      await pipe.close();
      if (!options.discord) await discord.close();
    },
  };
  try {
    await channel.start(runtime);
  } catch (error) {
    await setup.close();
    throw error;
  }
  return setup;
}

/** The bot's messages in a channel, as the fake holds them (edits applied). */
export const botPosts = (discord: FakeDiscord, channelId: string): DiscordMessage[] =>
  discord.messages.filter(
    (m) => m.channel_id === channelId && m.author.id === FAKE_DISCORD.botUserId,
  );

export interface InteractionInput {
  /** 2 a slash command, 3 a component click, 4 an autocomplete request, 5 a modal submit. */
  readonly type: 2 | 3 | 4 | 5;
  readonly data: Record<string, unknown>;
  /** The member's permissions bitfield; "0" is a plain member. */
  readonly permissions?: string;
}

let interactions = 0;

/** Dispatches an INTERACTION_CREATE as Discord sends it; returns the interaction's token. */
export function interact(discord: FakeDiscord, input: InteractionInput): string {
  const payload = interactionPayload(input);
  discord.dispatch("INTERACTION_CREATE", payload);
  return payload.token;
}

/** An INTERACTION_CREATE's payload as Discord sends it today, with a fresh id and token. */
export function interactionPayload(input: InteractionInput) {
  interactions += 1;
  const token = `itoken-${interactions}-${Math.random().toString(36).slice(2)}`;
  return {
    id: `14${String(Date.now()).slice(-13)}${String(interactions).padStart(4, "0")}`.slice(0, 19),
    application_id: FAKE_DISCORD.applicationId,
    type: input.type,
    token,
    version: 1,
    guild_id: FAKE_DISCORD.guildId,
    channel_id: FAKE_DISCORD.channelId,
    channel: { id: FAKE_DISCORD.channelId, type: 0, guild_id: FAKE_DISCORD.guildId },
    member: {
      user: { id: HUMAN, username: "ada", discriminator: "0", global_name: "Ada", avatar: null },
      roles: [],
      permissions: input.permissions ?? "0",
      joined_at: new Date().toISOString(),
      deaf: false,
      mute: false,
      flags: 0,
    },
    app_permissions: "2248473465835073",
    locale: "en-US",
    guild_locale: "en-US",
    entitlements: [],
    authorizing_integration_owners: { "0": FAKE_DISCORD.guildId },
    context: 0,
    ...(input.type === 3 ? { message: ephemeralBotMessage() } : {}),
    data: input.data,
  };
}

/** A slash command: `/tools off lookup channel` is `slash("tools", "off", { tool: "lookup", scope: "channel" })`. */
export function slash(
  command: "tools" | "skills",
  sub: string,
  options: Record<string, string> = {},
  focused?: string,
): Record<string, unknown> {
  return {
    id: command === "tools" ? "1500000000000000001" : "1500000000000000002",
    name: command,
    type: 1,
    options: [
      {
        type: 1,
        name: sub,
        options: Object.entries(options).map(([name, value]) => ({
          type: 3,
          name,
          value,
          ...(name === focused ? { focused: true } : {}),
        })),
      },
    ],
  };
}

/** A click on a button (component_type 2) or a choice in a select (3). */
export function click(customId: string, values?: string[]): Record<string, unknown> {
  return values
    ? { custom_id: customId, component_type: 3, values }
    : { custom_id: customId, component_type: 2 };
}

export interface ShownMessage {
  content: string;
  components?: {
    components: {
      custom_id: string;
      label?: string;
      options?: { value: string; label: string; description?: string; default?: boolean }[];
    }[];
  }[];
}

/** What the interaction's reply was edited to (the deferred reply or the clicked message). */
export const shown = (discord: FakeDiscord, token: string): ShownMessage | undefined =>
  discord.calls.find(
    (c) =>
      c.method === "PATCH" &&
      c.status === 200 &&
      decodeURIComponent(c.path).includes(`/${token}/messages/`),
  )?.body as ShownMessage | undefined;

/** Every custom id in a message, row by row. */
export const customIds = (message: ShownMessage): string[][] =>
  (message.components ?? []).map((row) => row.components.map((c) => c.custom_id));

/** The interaction callback the bot sent (type 8 carries autocomplete choices). */
export const callbackOf = (discord: FakeDiscord, token: string) =>
  discord.calls.find(
    (c) => c.method === "POST" && decodeURIComponent(c.path).includes(`/${token}/callback`),
  )?.body as
    | { type: number; data?: { choices?: { name: string; value: string }[]; content?: string } }
    | undefined;

/** The ephemeral list message a click comes from. */
function ephemeralBotMessage() {
  return {
    id: "1600000000000000001",
    channel_id: FAKE_DISCORD.channelId,
    author: {
      id: FAKE_DISCORD.botUserId,
      username: "switchyard",
      discriminator: "0",
      bot: true,
      avatar: null,
    },
    content: "list",
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: 0,
    flags: 64,
    components: [],
  };
}

/** A gateway event stored under test/fixtures/discord/ (see its README for where each comes from). */
export interface GatewayFixture {
  readonly modeledOn: string;
  readonly t: string;
  // biome-ignore lint/suspicious/noExplicitAny: payloads as Discord sends them, edited field by field
  readonly d: any;
}

const FIXTURES = new URL("../fixtures/discord/", import.meta.url);

/** A fresh copy of a stored payload, so a test may edit it. */
export function fixture(name: string): GatewayFixture {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), "utf8")) as GatewayFixture;
}

/** Every stored payload's name. */
export const fixtureNames = (): string[] =>
  readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length));
