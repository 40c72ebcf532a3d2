import { afterEach, describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { until } from "../support/channels.ts";
import {
  botPosts,
  callbackOf,
  type DiscordSetup,
  HUMAN,
  interactionPayload,
  slash,
  startDiscordBot,
} from "../support/discord.ts";

const OWNER = "1000000000000000009";
const HUMAN_DM = "1300000000000000099";
const OWNER_DM = "1300000000000000098";

let setup: DiscordSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

function config(extra = ""): SwitchyardConfig {
  return parseConfig(`permissions:\n  owners: [discord:${OWNER}]\n${extra}`, "switchyard.yaml");
}

async function start(cfg: SwitchyardConfig) {
  setup = await startDiscordBot({
    config: () => cfg,
    fake: { users: { [HUMAN]: { username: "ada" }, [OWNER]: { username: "olga" } } },
  });
  return setup;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

async function posts(s: DiscordSetup, channel: string, count: number): Promise<string[]> {
  return until(() => {
    const texts = botPosts(s.discord, channel).map((m) => m.content);
    return texts.length >= count ? texts : undefined;
  });
}

describe("who may talk to the Discord bot", () => {
  it("gives a stranger in a DM a pairing code, answers them once an owner approves it", async () => {
    const s = await start(config());
    s.discord.messageCreate({ channelId: HUMAN_DM, authorId: HUMAN, content: "hello?" });
    const [pairing = ""] = await posts(s, HUMAN_DM, 1);
    const code = /pairing code is ([A-Z2-9]{8})/.exec(pairing)?.[1];
    expect(code).toBeDefined();
    s.discord.messageCreate({ channelId: HUMAN_DM, authorId: HUMAN, content: "anyone?" });
    await settle();
    expect(botPosts(s.discord, HUMAN_DM)).toHaveLength(1);

    s.discord.messageCreate({
      channelId: OWNER_DM,
      authorId: OWNER,
      content: `!access approve ${code}`,
    });
    const [approved = ""] = await posts(s, OWNER_DM, 1);
    expect(approved).toContain(`(discord:${HUMAN})`);

    s.discord.messageCreate({ channelId: HUMAN_DM, authorId: HUMAN, content: "now?" });
    const texts = await posts(s, HUMAN_DM, 2);
    expect(texts[1]).toBe("echo: now?");
    expect(s.pipe.fake.requests).toHaveLength(1);
  });

  it("refuses a guild that is not on the allow list once, and queues nothing", async () => {
    const s = await start(config("access:\n  groups: allowlist\n  allow: [discord:guild:1]\n"));
    const mention = (text: string) => `<@${FAKE_DISCORD.botUserId}> ${text}`;
    s.discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("hi"),
    });
    const [refusal = ""] = await posts(s, FAKE_DISCORD.channelId, 1);
    expect(refusal).toContain("This group is not on this bot's allow list");
    s.discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: mention("hm?"),
    });
    await settle();
    expect(botPosts(s.discord, FAKE_DISCORD.channelId)).toHaveLength(1);
    expect(s.pipe.fake.requests).toHaveLength(0);
  });

  it("answers 20 of 25 DMs under user: 20/10m, says so once, then stays silent", async () => {
    const s = await start(config("access:\n  dm: open\nlimits:\n  user: 20/10m\n"));
    for (let i = 1; i <= 20; i++) {
      s.discord.messageCreate({ channelId: HUMAN_DM, authorId: HUMAN, content: `message ${i}` });
      await posts(s, HUMAN_DM, i);
    }
    for (let i = 21; i <= 25; i++) {
      s.discord.messageCreate({ channelId: HUMAN_DM, authorId: HUMAN, content: `message ${i}` });
    }
    const texts = await posts(s, HUMAN_DM, 21);
    await settle();
    expect(botPosts(s.discord, HUMAN_DM)).toHaveLength(21);
    expect(texts.slice(0, 20)).toEqual(
      Array.from({ length: 20 }, (_, i) => `echo: message ${i + 1}`),
    );
    expect(texts[20]).toContain("over the limit of 20 messages per 10 minutes for one person");
    expect(s.pipe.fake.requests).toHaveLength(20);
  });

  it("answers a stranger's /tools in a DM with the pairing code, and changes nothing", async () => {
    const s = await start(config());
    // The same interaction, as Discord sends it from a DM: a user, no guild, no member.
    const { guild_id, member, authorizing_integration_owners, ...inGuild } = interactionPayload({
      type: 2,
      data: slash("tools", "off", { tool: "lookup", scope: "conversation" }),
    });
    const fromDm = {
      ...inGuild,
      channel_id: HUMAN_DM,
      channel: { id: HUMAN_DM, type: 1 },
      user: member.user,
      context: 1,
      authorizing_integration_owners: { "1": HUMAN },
    };
    s.discord.dispatch("INTERACTION_CREATE", fromDm);
    const answered = await until(() => callbackOf(s.discord, fromDm.token));
    expect(answered.data?.content).toMatch(/pairing code is [A-Z2-9]{8}/);
    const { intent } = await s.pipe.app.store.intent.read({
      platform: "discord",
      workspace: "dm",
      channel: HUMAN_DM,
      conversation: HUMAN_DM,
    });
    expect(intent.decisions).toEqual({});
    expect(s.pipe.fake.requests).toHaveLength(0);
  });
});
