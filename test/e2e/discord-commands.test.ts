import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/tools/tool.ts";
import { loadSkills } from "../../src/runtime/skill-folders.ts";
import {
  FAKE_DISCORD,
  type FakeDiscord,
  startFakeDiscord,
} from "../../src/testing/fakes/discord-api.ts";
import { guildCreatePayload, userPayload } from "../../src/testing/fakes/discord-model.ts";
import { until } from "../support/channels.ts";
import {
  botPosts,
  CHANNEL_ADDRESS,
  callbackOf,
  click,
  customIds,
  type DiscordSetup,
  HUMAN,
  interact,
  MANAGE_SERVER,
  shown,
  slash,
  startDiscordBot,
} from "../support/discord.ts";
import { bigTool, lookupTool } from "../support/pipeline.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";

const running: DiscordSetup[] = [];
const fakes: FakeDiscord[] = [];
afterEach(async () => {
  for (const setup of running.splice(0)) await setup.close();
  for (const fake of fakes.splice(0)) await fake.close();
});

async function start(options: Parameters<typeof startDiscordBot>[0] = {}) {
  const setup = await startDiscordBot(options);
  running.push(setup);
  return setup;
}

const address = CHANNEL_ADDRESS;

const commandPuts = (discord: FakeDiscord, path: string) =>
  discord.calls
    .filter((c) => c.method === "PUT" && c.path === path)
    .map((c) => ((c.body ?? []) as { name: string }[]).map((command) => command.name));

const GUILD_COMMANDS = `/applications/${FAKE_DISCORD.applicationId}/guilds/${FAKE_DISCORD.guildId}/commands`;
const GLOBAL_COMMANDS = `/applications/${FAKE_DISCORD.applicationId}/commands`;

/** Every application command the bot registers: /tools and /skills, then the commands every platform shares. */
const ALL_COMMANDS = [
  "tools",
  "skills",
  ...["help", "new", "stop", "usage", "model", "queue", "agent", "approve", "deny", "schedule"],
];

describe("Discord application commands", () => {
  it("registers its commands in the guild, refuses the channel scope without Manage Server, and applies it with", async () => {
    const { pipe, discord } = await start();
    expect(commandPuts(discord, GUILD_COMMANDS)).toEqual([ALL_COMMANDS]);

    const refused = interact(discord, {
      type: 2,
      data: slash("tools", "off", { tool: "lookup", scope: "channel" }),
    });
    expect((await until(() => shown(discord, refused))).content).toMatch(
      /Only workspace admins or the bot's configured admins/,
    );
    const allowed = interact(discord, {
      type: 2,
      data: slash("tools", "off", { tool: "lookup", scope: "channel" }),
      permissions: MANAGE_SERVER,
    });
    expect((await until(() => shown(discord, allowed))).content).toContain(
      "lookup is now off in this channel",
    );

    pipe.fake.script({ content: "ok" });
    discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: `<@${FAKE_DISCORD.botUserId}> go`,
    });
    await until(() =>
      botPosts(discord, FAKE_DISCORD.channelId).some((m) => m.content === "ok") ? true : undefined,
    );
    const names = (pipe.fake.requests[0]?.body.tools ?? []).map(
      (t: { function: { name: string } }) => t.function.name,
    );
    expect(names).not.toContain("lookup");
  });

  it("registers globally instead with commands: global, and switching scopes leaves no second copy", async () => {
    const discord = await startFakeDiscord({ users: { [HUMAN]: { username: "ada" } } });
    fakes.push(discord);
    // One Redis prefix for the three starts: the bot remembers where it registered.
    const prefix = uniquePrefix("discord-commands");
    const run = async (commands: "guild" | "global") => {
      const setup = await startDiscordBot({
        discord,
        channel: { commands },
        pipeline: { prefix, keepKeys: true },
      });
      await setup.close();
    };
    try {
      await run("global");
      expect(commandPuts(discord, GLOBAL_COMMANDS)).toEqual([ALL_COMMANDS]);
      expect(commandPuts(discord, GUILD_COMMANDS)).toEqual([]);

      await run("guild");
      expect(commandPuts(discord, GUILD_COMMANDS)).toEqual([ALL_COMMANDS]);
      expect(commandPuts(discord, GLOBAL_COMMANDS)).toEqual([ALL_COMMANDS, []]);

      await run("global");
      expect(commandPuts(discord, GLOBAL_COMMANDS)).toEqual([ALL_COMMANDS, [], ALL_COMMANDS]);
      expect(commandPuts(discord, GUILD_COMMANDS)).toEqual([ALL_COMMANDS, []]);
    } finally {
      const redis = connectRedis({});
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    }
  });

  it("registers the commands in a guild the bot joins while running", async () => {
    const { discord } = await start();
    const joined = { id: "1200000000000000077", name: "New Guild", channels: [] };
    discord.dispatch(
      "GUILD_CREATE",
      guildCreatePayload(
        joined,
        userPayload(FAKE_DISCORD.botUserId, { username: "switchyard", bot: true }),
      ),
    );
    const put = await discord.waitForCall(
      "PUT",
      new RegExp(`/applications/${FAKE_DISCORD.applicationId}/guilds/${joined.id}/commands$`),
    );
    expect((put.body as { name: string }[]).map((c) => c.name)).toEqual(ALL_COMMANDS);
  });

  it("uses DISCORD_APPLICATION_ID, and says so when it is not the token's application", async () => {
    const ok = await start({ channel: { applicationId: FAKE_DISCORD.applicationId } });
    expect(commandPuts(ok.discord, GUILD_COMMANDS)).toEqual([ALL_COMMANDS]);
    expect(ok.warnings).toEqual([]);

    const other = "1100000000000000999";
    const discord = await startFakeDiscord({});
    fakes.push(discord);
    const warnings: string[] = [];
    const failed = startDiscordBot({ discord, channel: { applicationId: other }, warnings });
    await expect(failed).rejects.toThrow(
      /Discord refused to register \/tools and \/skills in guild \d+ for application 1100000000000000999: .*Check that DISCORD_APPLICATION_ID/,
    );
    expect(warnings.join("\n")).toContain(
      `DISCORD_APPLICATION_ID is ${other}, but the token belongs to application ${FAKE_DISCORD.applicationId}`,
    );
    expect(
      discord.calls.some((c) => c.method === "PUT" && c.path.startsWith(`/applications/${other}/`)),
    ).toBe(true);
  });

  it("autocompletes tool ids for /tools, and for /skills off only the skills still on", async () => {
    const skills = await loadSkills({ global: [], workspaces: {} });
    const { discord } = await start({ skills });
    const complete = async (data: Record<string, unknown>) => {
      const token = interact(discord, { type: 4, data });
      const answer = await until(() => callbackOf(discord, token));
      expect(answer?.type).toBe(8);
      return (answer?.data?.choices ?? []).map((c) => c.value).sort();
    };
    expect(await complete(slash("tools", "off", { tool: "loo" }, "tool"))).toEqual(["lookup"]);

    const names = [
      ...new Set(skills.sourcesFor(address).flatMap((s) => s.skills.map((k) => k.name))),
    ];
    expect(names.length).toBeGreaterThan(1);
    expect(await complete(slash("skills", "off", { skill: "" }, "skill"))).toEqual(names.sort());
    const [gone, ...kept] = names;
    const switched = interact(discord, {
      type: 2,
      data: slash("skills", "off", { skill: gone as string }),
      permissions: MANAGE_SERVER,
    });
    expect((await until(() => shown(discord, switched))).content).toContain(`${gone} is now off`);
    expect(await complete(slash("skills", "off", { skill: "" }, "skill"))).toEqual(kept);
    expect(await complete(slash("skills", "on", { skill: "" }, "skill"))).toEqual(names);
  });
});

describe("the Discord /tools message's components", () => {
  it("lists tools with a select; picking one shows why with on/off buttons; a click switches it in place", async () => {
    const { discord, pipe } = await start();
    const listed = interact(discord, { type: 2, data: slash("tools", "list") });
    const list = await until(() => shown(discord, listed));
    expect(list.content).toMatch(/^2 of 2 tools available/);
    const select = list.components?.[0]?.components[0];
    expect(select?.custom_id).toBe("tools:pick|conversation|0");
    expect(select?.options?.map((o) => o.value)).toEqual(["lookup", "calendar_create"]);

    const picked = interact(discord, {
      type: 3,
      data: click("tools:pick|conversation|0", ["lookup"]),
    });
    const why = await until(() => shown(discord, picked));
    expect(why.content).toMatch(/^lookup: on/);
    expect(customIds(why)[1]).toEqual([
      "tools:on|conversation|0|lookup",
      "tools:off|conversation|0|lookup",
    ]);

    const clicked = interact(discord, { type: 3, data: click("tools:off|conversation|0|lookup") });
    const after = await until(() => shown(discord, clicked));
    expect(after.content).toContain("lookup is now off in this conversation");
    const { intent } = await pipe.app.store.intent.read(address);
    expect(intent.decisions).toEqual({ lookup: false });
    expect(
      after.components?.[0]?.components[0]?.options?.find((o) => o.value === "lookup")?.description,
    ).toMatch(/^disabled by conversation scope/);
  });

  it("refuses a button at the channel scope to a member without Manage Server, as the typed command would be", async () => {
    const { discord, pipe } = await start();
    const scoped = interact(discord, { type: 3, data: click("tools:scope|0|lookup", ["channel"]) });
    expect(customIds(await until(() => shown(discord, scoped)))[1]).toEqual([
      "tools:on|channel|0|lookup",
      "tools:off|channel|0|lookup",
    ]);
    const refused = interact(discord, { type: 3, data: click("tools:off|channel|0|lookup") });
    expect((await until(() => shown(discord, refused))).content).toMatch(
      /Only workspace admins or the bot's configured admins/,
    );
    expect((await pipe.app.store.scopes.readStack(address)).channel.keys ?? {}).toEqual({});
    const allowed = interact(discord, {
      type: 3,
      data: click("tools:off|channel|0|lookup"),
      permissions: MANAGE_SERVER,
    });
    expect((await until(() => shown(discord, allowed))).content).toContain(
      "lookup is now off in this channel",
    );
    expect((await pipe.app.store.scopes.readStack(address)).channel.keys).toEqual({
      lookup: false,
    });
  });

  it("pages a list longer than a select holds, and a click on page 2 switches the tool it names", async () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      defineTool({
        id: `tool_${String(i).padStart(2, "0")}`,
        description: `Tool number ${i}.`,
        parameters: z.object({}),
        execute: () => "done",
      }),
    );
    const { discord, pipe } = await start({ tools: many });
    const listed = interact(discord, { type: 2, data: slash("tools", "list") });
    const first = await until(() => shown(discord, listed));
    expect(first.content).toContain("Page 1 of 2.");
    expect(first.components?.[0]?.components[0]?.options).toHaveLength(25);
    expect(customIds(first).at(-1)).toEqual(["tools:page|conversation|1"]);

    const next = interact(discord, { type: 3, data: click("tools:page|conversation|1") });
    const second = await until(() => shown(discord, next));
    expect(second.content).toContain("Page 2 of 2.");
    expect(second.components?.[0]?.components[0]?.options?.map((o) => o.value)).toEqual([
      "tool_25",
      "tool_26",
      "tool_27",
      "tool_28",
      "tool_29",
    ]);
    expect(customIds(second).at(-1)).toEqual(["tools:page|conversation|0"]);

    const picked = interact(discord, {
      type: 3,
      data: click("tools:pick|conversation|1", ["tool_27"]),
    });
    const why = await until(() => shown(discord, picked));
    const off = customIds(why)[1]?.[1] as string;
    expect(off).toBe("tools:off|conversation|1|tool_27");
    const clicked = interact(discord, { type: 3, data: click(off) });
    expect((await until(() => shown(discord, clicked))).content).toContain(
      "tool_27 is now off in this conversation",
    );
    expect((await pipe.app.store.intent.read(address)).intent.decisions).toEqual({
      tool_27: false,
    });
  });

  it("answers a control it cannot read with what to do, and changes nothing", async () => {
    const { discord, pipe } = await start();
    const token = interact(discord, { type: 3, data: click("tools:off|everywhere|0|lookup") });
    const reply = await until(() => callbackOf(discord, token));
    expect(reply?.data?.content).toMatch(/Unreadable tools control .* Run the command again/);
    expect((await pipe.app.store.intent.read(address)).intent.decisions).toEqual({});
  });
});

describe("the Discord /skills message's components", () => {
  it("lists skills with a select; switching one at the channel scope needs Manage Server, and updates the message", async () => {
    const skills = await loadSkills({ global: [], workspaces: {} });
    const { discord, pipe } = await start({ skills, tools: [lookupTool, bigTool] });
    const listed = interact(discord, { type: 2, data: slash("skills", "list") });
    const list = await until(() => shown(discord, listed));
    expect(list.content).toMatch(/^2 of 2 skills available/);
    const options = list.components?.[0]?.components[0]?.options ?? [];
    expect(options).toHaveLength(2);
    const name = options[0]?.value as string;

    const picked = interact(discord, { type: 3, data: click("skills:pick|channel|0", [name]) });
    const why = await until(() => shown(discord, picked));
    expect(why.content).toMatch(new RegExp(`^${name}: on`));
    expect(customIds(why)[1]).toEqual([
      `skills:on|channel|0|${name}`,
      `skills:off|channel|0|${name}`,
    ]);
    expect(customIds(why)[2]).toEqual([`skills:scope|0|${name}`]);

    const refused = interact(discord, { type: 3, data: click(`skills:off|channel|0|${name}`) });
    expect((await until(() => shown(discord, refused))).content).toMatch(
      /Only workspace admins or the bot's configured admins/,
    );
    expect((await pipe.app.store.scopes.readStack(address)).skills.channel).toEqual({});
    const allowed = interact(discord, {
      type: 3,
      data: click(`skills:off|channel|0|${name}`),
      permissions: MANAGE_SERVER,
    });
    const after = await until(() => shown(discord, allowed));
    expect(after.content).toContain(`${name} is now off in this channel`);
    expect(
      after.components?.[0]?.components[0]?.options?.find((o) => o.value === name)?.description,
    ).toMatch(/^off \(disabled by/);
    const relisted = interact(discord, { type: 2, data: slash("skills", "list") });
    expect((await until(() => shown(discord, relisted))).content).toMatch(
      /^1 of 2 skills available/,
    );
  });
});
