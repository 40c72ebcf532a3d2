import { GatewayDispatchEvents } from "discord.js";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FAKE_DISCORD } from "../../src/testing/fakes/discord-api.ts";
import { userPayload } from "../../src/testing/fakes/discord-model.ts";
import { until } from "../support/channels.ts";
import {
  botPosts,
  callbackOf,
  type DiscordSetup,
  fixture,
  fixtureNames,
  HUMAN,
  shown,
  startDiscordBot,
} from "../support/discord.ts";

const DM_CHANNEL = "1300000000000000099";

let setup: DiscordSetup | undefined;
const cleanupsAfter: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanupsAfter.splice(0)) cleanup();
  await setup?.close();
  setup = undefined;
});

async function start(options: Parameters<typeof startDiscordBot>[0] = {}) {
  setup = await startDiscordBot(options);
  return setup;
}

/** A DM to the bot and its answer: proof that the gateway session still takes events. */
async function stillAnswers(s: DiscordSetup, text: string): Promise<void> {
  s.pipe.fake.script({ content: `answer to ${text}` });
  s.discord.messageCreate({ channelId: DM_CHANNEL, authorId: HUMAN, content: text });
  await until(() =>
    botPosts(s.discord, DM_CHANNEL).some((m) => m.content === `answer to ${text}`)
      ? true
      : undefined,
  );
}

describe("a gateway event discord.js cannot parse", () => {
  it("is dropped, logged and counted, and the same session goes on answering: the docs' own slash-command example", async () => {
    const s = await start();
    const example = fixture("interaction-docs-slash-command");
    s.discord.dispatch(example.t, example.d);
    // discord.js 14.28 reads data.entitlements.reduce: without the repair this throws in the packet handler.
    const answer = await until(() => callbackOf(s.discord, example.d.token));
    expect(answer).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(answer.data?.content).toContain("/dice is not one of my commands");

    // A payload no repair can save: an interaction with neither member nor user.
    const broken = { ...fixture("interaction-docs-slash-command").d, id: "786008729715212999" };
    broken.token = "TOKEN_OF_A_BROKEN_ONE";
    delete broken.member;
    s.discord.dispatch("INTERACTION_CREATE", broken);
    const unreadable = await until(() => callbackOf(s.discord, broken.token));
    expect(unreadable.data?.content).toMatch(/in a shape I could not read, so nothing was done/);
    expect(s.failures).toEqual(["gateway"]);
    expect(s.warnings.join("\n")).toMatch(/could not handle a INTERACTION_CREATE event/);

    await stillAnswers(s, "are you still there?");
    expect(s.discord.identifies).toBe(1);
    expect(s.discord.resumes).toBe(0);
  });
});

const BOT = userPayload(FAKE_DISCORD.botUserId, { username: "switchyard", bot: true });
const PROBE_CHANNEL = "1300000000000000098";
let ids = 0n;
/** A fresh snowflake for a replayed message, so no two cases share an event id. */
const freshId = () => String(((BigInt(Date.now()) - 1_420_070_400_000n) << 22n) | (ids++ & 0xfffn));

/** A stored MESSAGE_CREATE moved into the fake guild's channel, mentioning the bot unless told not to. */
// biome-ignore lint/suspicious/noExplicitAny: payloads as Discord sends them
function inGuild(d: any, { mention = true } = {}) {
  return {
    ...d,
    id: freshId(),
    guild_id: FAKE_DISCORD.guildId,
    channel_id: FAKE_DISCORD.channelId,
    content: mention ? `<@${FAKE_DISCORD.botUserId}> ${d.content}` : d.content,
    mentions: mention ? [...(d.mentions ?? []), BOT] : (d.mentions ?? []),
  };
}

/** A stored MESSAGE_CREATE moved into a DM with the bot, from a person. */
// biome-ignore lint/suspicious/noExplicitAny: payloads as Discord sends them
function inDm(d: any, { person = false } = {}) {
  const { guild_id: _guild, member: _member, ...rest } = d;
  return {
    ...rest,
    id: freshId(),
    channel_id: DM_CHANNEL,
    channel_type: 1,
    ...(person ? { author: userPayload(HUMAN, { username: "ada" }) } : {}),
  };
}

const lastAsked = (s: DiscordSetup) =>
  s.pipe.fake.requests.map((r) => String(r.body.messages.at(-1).content));

/** Dispatches a message and waits for the bot's one reply to it; returns what the model was asked. */
async function expectQueued(s: DiscordSetup, d: { id: string; channel_id: string }) {
  const before = s.pipe.fake.requests.length;
  s.discord.dispatch("MESSAGE_CREATE", d);
  const replyTo = () => s.discord.messages.filter((m) => m.message_reference?.message_id === d.id);
  await until(() => (replyTo().length > 0 ? true : undefined));
  // Long enough for a second turn or post to show, were there one.
  await new Promise((resolve) => setTimeout(resolve, 150));
  expect(replyTo()).toHaveLength(1);
  const asked = lastAsked(s).slice(before);
  expect(asked).toHaveLength(1);
  return asked[0] as string;
}

let probes = 0;
/** Dispatches a message and proves it was handled and left alone: a later probe is answered, it is not. */
async function expectIgnored(s: DiscordSetup, d: { id: string }) {
  const before = s.pipe.fake.requests.length;
  s.discord.dispatch("MESSAGE_CREATE", d);
  probes += 1;
  const probe = `probe ${probes}`;
  s.discord.messageCreate({ channelId: PROBE_CHANNEL, authorId: HUMAN, content: probe });
  await until(() =>
    botPosts(s.discord, PROBE_CHANNEL).some((m) => m.content === `echo: ${probe}`)
      ? true
      : undefined,
  );
  expect(s.discord.messages.filter((m) => m.message_reference?.message_id === d.id)).toEqual([]);
  expect(lastAsked(s).slice(before)).toEqual([probe]);
}

describe("MESSAGE_CREATE as Discord and the SDKs' test suites have it", () => {
  let s: DiscordSetup;
  beforeAll(async () => {
    s = await startDiscordBot();
  });
  afterAll(async () => {
    await s.close();
  });
  afterEach(() => {
    expect(s.failures).toEqual([]);
  });

  it("the docs' example message: dropped verbatim (a channel discord.js cannot type), queued in a DM and, without member, in the guild", async () => {
    const { d } = fixture("message-docs-example");
    await expectIgnored(s, { ...d, id: freshId() });
    expect(await expectQueued(s, inDm(d))).toBe("hello in the docs' shape");
    expect(await expectQueued(s, inGuild(d))).toBe("hello in the docs' shape");
    expect(s.pipe.fake.requests.at(-1)?.body.messages.at(-1).name).toMatch(/marlow/);
  });

  it("captured gateway messages (Discord4J): a member without user, a nonce, another message's reply", async () => {
    expect(await expectQueued(s, inGuild(fixture("message-d4j-type0").d))).toBe(
      "ping, are you there?",
    );
    expect(await expectQueued(s, inGuild(fixture("message-d4j-type6").d))).toBe("a second message");
    const reply = fixture("message-d4j-reply").d;
    // A reply to another bot's message, not mentioning this one: chatter.
    await expectIgnored(s, inGuild(reply, { mention: false }));
    // The same reply, to one of this bot's messages: meant for it.
    reply.referenced_message.author = BOT;
    reply.mentions = [BOT];
    expect(await expectQueued(s, inGuild(reply, { mention: false }))).toBe("thanks, that works");
  });

  it("a forward reads as the message it forwards (message_snapshots)", async () => {
    const asked = await expectQueued(s, inDm(fixture("message-d4j-forward").d, { person: true }));
    expect(asked).toBe(
      "Forwarded message:\nThe meeting moved to Thursday at 10.\nBring the draft agenda; we will go through it item by item.",
    );
  });

  it("embeds, attachments and components v2 (discord.js's own test messages)", async () => {
    const embeds = await expectQueued(s, inDm(fixture("message-djs-embeds-attachments").d));
    // The fixture's CDN URL is off the API's host: it goes through the SSRF guard, and is not there.
    expect(embeds).toMatch(
      /^roles <&5> and <&6> mentioned\n\n\[file: file\.txt \(5 bytes\)\]\n\(it could not be fetched: /,
    );
    // No text at all, one file: the file is what was sent.
    const v2 = await expectQueued(s, inDm(fixture("message-djs-components-v2").d));
    expect(v2).toMatch(/^\[file: file\.txt \(5 bytes\)\]\n\(it could not be fetched: /);
  });

  it("ten embeds at every limit arrive and are queued by their text", async () => {
    const big = fixture("message-docs-huge-embeds").d;
    big.embeds = Array.from({ length: 10 }, () => big.embeds[0]);
    expect(await expectQueued(s, inGuild(big))).toBe("read the embeds");
  });

  it("ignores what is no one talking to it: a crosspost, a webhook, stickers and polls without text, system notices", async () => {
    await expectIgnored(s, inGuild(fixture("message-docs-crossposted").d, { mention: false }));
    await expectIgnored(s, inGuild(fixture("message-docs-webhook").d));
    await expectIgnored(s, inDm(fixture("message-d4j-sticker").d));
    await expectIgnored(s, inDm(fixture("message-docs-poll").d));
    await expectIgnored(s, inDm(fixture("message-docs-user-join").d));
    // A notice is ignored whatever its text says, even one that names the bot.
    await expectIgnored(s, inGuild(fixture("message-docs-thread-created").d));
  });
});

/** The initial responses to one interaction (Discord takes one; the fake refuses the rest). */
const callbacksFor = (s: DiscordSetup, d: { id: string; token: string }) =>
  s.discord.calls.filter(
    (c) =>
      c.method === "POST" &&
      decodeURIComponent(c.path) === `/interactions/${d.id}/${d.token}/callback`,
  );

/** Dispatches a stored interaction and returns its one answer (the initial response). */
// biome-ignore lint/suspicious/noExplicitAny: payloads as Discord sends them
async function answerTo(s: DiscordSetup, d: any) {
  s.discord.dispatch("INTERACTION_CREATE", d);
  const first = await until(() => callbacksFor(s, d)[0]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(callbacksFor(s, d)).toHaveLength(1);
  return first.body as { type: number; data?: { content?: string; choices?: unknown[] } };
}

/** A stored interaction moved into the fake guild's channel, as one of this bot's commands. */
// biome-ignore lint/suspicious/noExplicitAny: payloads as Discord sends them
function asOwnCommand(d: any, data: Record<string, unknown>) {
  return {
    ...d,
    id: freshId(),
    token: `replayed-${freshId()}`,
    guild_id: FAKE_DISCORD.guildId,
    channel_id: FAKE_DISCORD.channelId,
    data,
  };
}

describe("INTERACTION_CREATE as the docs and Discord4J's captures have it", () => {
  let s: DiscordSetup;
  beforeAll(async () => {
    s = await startDiscordBot();
  });
  afterAll(async () => {
    await s.close();
  });

  it("answers each command it does not own once, at once, ephemeral: slash, subcommand group, user and message commands", async () => {
    const cases: [string, string][] = [
      ["interaction-d4j-slash-resolved", "/inspect is not one of my commands"],
      ["interaction-d4j-subcommand-group", "/inspect is not one of my commands"],
      ["interaction-docs-user-command", '"Wave at" is not one of my commands'],
      ["interaction-docs-message-command", '"Bookmark" is not one of my commands'],
      ["interaction-docs-user-installed", "/profile is not one of my commands"],
    ];
    for (const [name, says] of cases) {
      const answer = await answerTo(s, fixture(name).d);
      expect(answer, name).toMatchObject({ type: 4, data: { flags: 64 } });
      expect(answer.data?.content, name).toContain(says);
    }
  });

  it("answers a component or form it does not own, and offers no choices for another app's autocompletion", async () => {
    for (const name of ["interaction-docs-button", "interaction-docs-string-select"]) {
      // As the docs show it, without the message the component is on (Discord always sends one):
      // discord.js cannot read it, and it is answered from its id and token.
      const bare = fixture(name).d;
      expect((await answerTo(s, bare)).data?.content, name).toMatch(/in a shape I could not read/);
      const onMessage = { ...bare, id: freshId(), message: fixture("message-docs-example").d };
      const answer = await answerTo(s, onMessage);
      expect(answer.data?.content, name).toMatch(/^That control is not one of mine/);
    }
    expect(s.failures).toEqual(["gateway", "gateway"]);
    expect((await answerTo(s, fixture("interaction-docs-modal-submit").d)).data?.content).toMatch(
      /^I don't open forms/,
    );
    expect(await answerTo(s, fixture("interaction-docs-autocomplete").d)).toEqual({
      type: 8,
      data: { choices: [] },
    });
  });

  it("answers its own /tools in the old shape (no channel object, no entitlements) and in a user-installed DM", async () => {
    const old = asOwnCommand(fixture("interaction-docs-slash-command").d, {
      id: "1500000000000000001",
      name: "tools",
      type: 1,
      options: [{ type: 1, name: "list" }],
    });
    expect((await answerTo(s, old)).type).toBe(5);
    expect((await until(() => shown(s.discord, old.token))).content).toMatch(
      /^2 of 2 tools available/,
    );

    const dm = fixture("interaction-docs-user-installed").d;
    dm.id = freshId();
    dm.token = `dm-${dm.id}`;
    // The docs' sample is another app's; an interaction this bot receives names its own.
    dm.application_id = FAKE_DISCORD.applicationId;
    dm.data = {
      id: "1500000000000000001",
      name: "tools",
      type: 1,
      options: [{ type: 1, name: "list" }],
    };
    expect((await answerTo(s, dm)).type).toBe(5);
    expect((await until(() => shown(s.discord, dm.token))).content).toMatch(
      /^2 of 2 tools available/,
    );
    expect(s.failures).toEqual(["gateway", "gateway"]); // the two bare components above, no more
  });
});

describe("THREAD_CREATE and GUILD_CREATE as the docs and Discord4J's captures have them", () => {
  it("takes a thread the bot started from its THREAD_CREATE, and leaves one someone else started alone", async () => {
    const s = await start();
    const own = {
      ...fixture("thread-create-docs").d,
      id: "1300000000000000050",
      guild_id: FAKE_DISCORD.guildId,
      parent_id: FAKE_DISCORD.channelId,
      owner_id: FAKE_DISCORD.botUserId,
    };
    const theirs = { ...own, id: "1300000000000000051", owner_id: HUMAN };
    s.discord.dispatch("THREAD_CREATE", own);
    s.discord.dispatch("THREAD_CREATE", theirs);
    const inThread = (thread: string, content: string) => ({
      ...inGuild(fixture("message-docs-example").d, { mention: false }),
      channel_id: thread,
      content,
    });
    expect(await expectQueued(s, inThread(own.id, "in my thread"))).toBe("in my thread");
    await expectIgnored(s, inThread(theirs.id, "in their thread"));
    expect(s.failures).toEqual([]);
  });

  it("registers the commands in a guild it joins (a captured GUILD_CREATE) and not for an unavailable one", async () => {
    const s = await start();
    const unavailable = fixture("guild-create-d4j-unavailable").d;
    s.discord.dispatch("GUILD_CREATE", unavailable);
    const joined = fixture("guild-create-d4j-full").d;
    s.discord.dispatch("GUILD_CREATE", joined);
    const commandsPath = (guild: string) =>
      new RegExp(`/applications/${FAKE_DISCORD.applicationId}/guilds/${guild}/commands$`);
    await s.discord.waitForCall("PUT", commandsPath(joined.id));
    await stillAnswers(s, "after two guilds");
    expect(
      s.discord.calls.filter((c) => c.method === "PUT" && commandsPath(joined.id).test(c.path)),
    ).toHaveLength(1);
    expect(s.discord.calls.some((c) => commandsPath(unavailable.id).test(c.path))).toBe(false);
    expect(s.failures).toEqual([]);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: payloads as Discord sends them
type Json = any;

/** Every stored payload, to mutate: real shapes with a field gone, nulled or of another type. */
const STORED = fixtureNames().map((name) => fixture(name));

/** A copy of `value` with the field at a random path deleted or replaced. */
function mutate(value: Json, path: number[], replacement: Json, remove: boolean): Json {
  if (typeof value !== "object" || value === null || path.length === 0) return replacement;
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[(path[0] as number) % keys.length] as string;
  const copy: Json = Array.isArray(value) ? [...value] : { ...value };
  if (remove && path.length === 1) {
    if (Array.isArray(copy)) copy.splice(Number(key), 1);
    else delete copy[key];
    return copy;
  }
  copy[key] = mutate(value[key], path.slice(1), replacement, remove);
  return copy;
}

/** Event names discord.js handles, but for the session handshake (READY, RESUMED), which @discordjs/ws parses itself. */
const EVENTS = Object.values(GatewayDispatchEvents).filter(
  (t) => t !== GatewayDispatchEvents.Ready && t !== GatewayDispatchEvents.Resumed,
);

const mutation = fc.record({
  path: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
  replacement: fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined)),
  remove: fc.boolean(),
});

/** A dispatch: a stored payload broken in a few places (often moved where the bot listens), or anything at all. */
const dispatchArb = fc.oneof(
  fc
    .record({
      stored: fc.constantFrom(...STORED),
      where: fc.constantFrom("as stored", "guild", "dm"),
      mutations: fc.array(mutation, { maxLength: 3 }),
      asEvent: fc.option(fc.constantFrom(...EVENTS), { freq: 4 }),
    })
    .map(({ stored, where, mutations, asEvent }) => {
      let d: Json = stored.d;
      if (stored.t === "MESSAGE_CREATE" && where === "guild") d = inGuild(d);
      if (stored.t === "MESSAGE_CREATE" && where === "dm") d = inDm(d, { person: true });
      if (stored.t === "INTERACTION_CREATE" && where !== "as stored") {
        d = {
          ...d,
          id: freshId(),
          token: `fuzz-${freshId()}`,
          application_id: FAKE_DISCORD.applicationId,
        };
      }
      for (const m of mutations) d = mutate(d, m.path, m.replacement, m.remove);
      return { t: asEvent ?? stored.t, d };
    }),
  fc.record({
    t: fc.oneof(fc.constantFrom(...EVENTS), fc.string({ maxLength: 12 })),
    d: fc.jsonValue({ maxDepth: 3 }),
  }),
);

describe("any dispatch payload at all", () => {
  it("never ends the process or the gateway session: the bot still answers after each", async () => {
    const s = await start();
    // What would end a process without a guard: seen here too, so fast-check shrinks to the payload.
    const escaped: unknown[] = [];
    const collect = (error: unknown) => escaped.push(error);
    process.on("unhandledRejection", collect);
    process.on("uncaughtException", collect);
    cleanupsAfter.push(() => {
      process.off("unhandledRejection", collect);
      process.off("uncaughtException", collect);
    });
    let probe = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(dispatchArb, { minLength: 1, maxLength: 3 }), async (events) => {
        for (const { t, d } of events) s.discord.dispatch(t, d);
        probe += 1;
        const channel = `13000000000007${String(probe).padStart(5, "0")}`;
        s.discord.messageCreate({ channelId: channel, authorId: HUMAN, content: "!tools" });
        await until(() =>
          botPosts(s.discord, channel).some((m) => m.content.includes("tools available"))
            ? true
            : undefined,
        );
        expect(escaped).toEqual([]);
      }),
      { numRuns: 60 },
    );
    expect(s.discord.identifies).toBe(1);
    await stillAnswers(s, "after all that");
  }, 120_000);
});
