import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DEFAULT_APPROVAL_POLICY } from "../../src/core/approvals/approval.ts";
import { requestText } from "../../src/core/approvals/request.ts";
import { FAKE_DISCORD, type FakeDiscord } from "../../src/testing/fakes/discord-api.ts";
import {
  approvalControls,
  deployRuns,
  deployTool,
  parkedWait,
  parkRequest,
} from "../support/approvals.ts";
import { until } from "../support/channels.ts";
import {
  botPosts,
  CHANNEL_ADDRESS,
  callbackOf,
  type DiscordSetup,
  fixture,
  HUMAN,
  MANAGE_SERVER,
  shown,
  startDiscordBot,
} from "../support/discord.ts";
import { connectRedis, uniquePrefix } from "../support/redis.ts";
import { settle } from "../support/slack-harness.ts";

const running: DiscordSetup[] = [];
afterEach(async () => {
  for (const setup of running.splice(0)) await setup.close();
});

const GUEST = "1000000000000000009";
const ADMIN = "1000000000000000007";
const address = CHANNEL_ADDRESS;
const target = { ...address };
const ARGS = '{"channel":"#ops","text":"@everyone deploy now <@1000000000000000007>"}';

async function start() {
  const setup = await startDiscordBot({ pipeline: { worker: false } });
  running.push(setup);
  return setup;
}

/** A request parked for `send_message`, posted in the channel with its buttons. */
async function postedRequest(setup: DiscordSetup) {
  const parked = await parkRequest(
    setup.pipe.app,
    address,
    { tool: "send_message", arguments: ARGS },
    { user: HUMAN, name: "Ada" },
  );
  const text = requestText(parked.wait, DEFAULT_APPROVAL_POLICY);
  const options = { idempotencyKey: `request:${parked.id}`, controls: approvalControls(parked.id) };
  const ref = await setup.channel.outbound.post(target, text, options);
  const message = setup.discord.messages.find((m) => m.id === ref);
  return { ...parked, ref, text, options, message };
}

let clicks = 0;

/**
 * A click as Discord sends it: the button interaction of Discord's API
 * docs (test/fixtures/discord/interaction-docs-button.json), on our
 * request message, by `user` with `permissions`, with a fresh id and token
 * unless a replay passes the first click's.
 */
function clickPayload(
  customId: string,
  message: unknown,
  user: string,
  permissions = "0",
  replay?: { id: string; token: string },
) {
  clicks += 1;
  const { d } = fixture("interaction-docs-button");
  d.id = replay?.id ?? `13${String(Date.now()).slice(-13)}${String(clicks).padStart(4, "0")}`;
  d.token = replay?.token ?? `itoken-approval-${clicks}-${Math.random().toString(36).slice(2)}`;
  d.application_id = FAKE_DISCORD.applicationId;
  d.guild_id = FAKE_DISCORD.guildId;
  d.channel_id = FAKE_DISCORD.channelId;
  d.channel = { id: FAKE_DISCORD.channelId, type: 0, guild_id: FAKE_DISCORD.guildId };
  d.member.user = { ...d.member.user, id: user, global_name: user === HUMAN ? "Ada" : null };
  d.member.permissions = permissions;
  d.message = message;
  d.data = { ...d.data, custom_id: customId };
  return d as { id: string; token: string };
}

function click(discord: FakeDiscord, payload: { id: string; token: string }): string {
  discord.dispatch("INTERACTION_CREATE", payload);
  return payload.token;
}

const buttons = (message: unknown) =>
  (
    (
      message as {
        components?: { components: { custom_id: string; label: string; style: number }[] }[];
      }
    ).components ?? []
  ).flatMap((row) => row.components);

describe("Discord approval requests", () => {
  it("show buttons, post once however often delivered, and lose their buttons when edited", async () => {
    const setup = await start();
    const request = await postedRequest(setup);
    expect(buttons(request.message).map((b) => [b.label, b.custom_id, b.style])).toEqual([
      ["Approve", `ap:${request.id}:a`, 1],
      ["Approve for this conversation", `ap:${request.id}:c`, 2],
      ["Deny", `ap:${request.id}:d`, 4],
      ["Show arguments", `ap:${request.id}:s`, 2],
    ]);
    expect(request.message?.content).not.toContain("@everyone");

    // Delivered again (a resumed worker): Discord's nonce answers with the same message.
    const again = await setup.channel.outbound.post(target, request.text, {
      ...request.options,
      mayExist: true,
    });
    expect(again).toBe(request.ref);
    expect(setup.discord.messages.filter((m) => m.id === request.ref)).toHaveLength(1);

    await setup.channel.outbound.edit(target, request.ref, "Approved by Ada: send_message.");
    const edited = setup.discord.messages.find((m) => m.id === request.ref);
    expect(edited?.content).toBe("Approved by Ada: send_message.");
    expect(edited?.components).toEqual([]);
  });

  it("take the requester's click and tell only them; a replayed interaction is answered once", async () => {
    const setup = await start();
    const { discord } = setup;
    const request = await postedRequest(setup);
    const payload = clickPayload(`ap:${request.id}:a`, request.message, HUMAN);
    const token = click(discord, payload);
    expect(await until(() => shown(discord, token))).toMatchObject({
      content: "Approved. The bot goes on.",
    });
    // Deferred as an ephemeral reply (flags 64): only the clicker sees the answer.
    expect(callbackOf(discord, token)).toMatchObject({ type: 5, data: { flags: 64 } });
    expect((await setup.pipe.app.store.approvals.read(address, request.id)).decision).toMatchObject(
      { verdict: "approved", by: { user: `discord:${HUMAN}`, name: "Ada" } },
    );

    // The gateway replays the same INTERACTION_CREATE (a RESUME): nothing more happens.
    click(discord, clickPayload(`ap:${request.id}:a`, request.message, HUMAN, "0", payload));
    await settle(300);
    const callbacks = discord.calls.filter((c) =>
      decodeURIComponent(c.path).includes(`/${token}/`),
    );
    expect(callbacks.filter((c) => c.method === "POST")).toHaveLength(1);
    // The request message is the worker's to edit, never the click's.
    expect(discord.messages.find((m) => m.id === request.ref)?.components).toHaveLength(1);
  });

  it("refuse someone who may not decide, privately, and tell a second clicker who decided first", async () => {
    const setup = await start();
    const { discord } = setup;
    const request = await postedRequest(setup);
    const deny = `ap:${request.id}:d`;
    const refused = click(discord, clickPayload(deny, request.message, GUEST));
    expect((await until(() => shown(discord, refused)))?.content).toBe(
      "Only Ada (who asked), admins or the bot's owners can decide this request.",
    );
    expect(
      (await setup.pipe.app.store.approvals.read(address, request.id)).decision,
    ).toBeUndefined();

    const admin = click(discord, clickPayload(deny, request.message, ADMIN, MANAGE_SERVER));
    expect((await until(() => shown(discord, admin)))?.content).toBe(
      "Denied. The bot goes on without it.",
    );
    const late = click(discord, clickPayload(`ap:${request.id}:a`, request.message, HUMAN));
    expect((await until(() => shown(discord, late)))?.content).toMatch(/already denied this\.$/);
    expect((await setup.pipe.app.store.approvals.read(address, request.id)).decision).toMatchObject(
      { verdict: "denied", by: { user: `discord:${ADMIN}` } },
    );
  });

  it("show the full arguments to the clicker alone, and answer a malformed custom id without deciding", async () => {
    const setup = await start();
    const { discord } = setup;
    const request = await postedRequest(setup);
    const show = click(discord, clickPayload(`ap:${request.id}:s`, request.message, GUEST));
    const details = (await until(() => shown(discord, show)))?.content ?? "";
    expect(details).toContain('"channel": "#ops"');
    expect(details).not.toContain("@everyone");

    const forged = click(discord, clickPayload("ap:NOT-AN-ID:a", request.message, HUMAN));
    expect((await until(() => shown(discord, forged)))?.content).toMatch(
      /^That button is not an approval request I can read/,
    );
    expect(
      (await setup.pipe.app.store.approvals.read(address, request.id)).decision,
    ).toBeUndefined();
  });

  it("show arguments longer than a Discord message in ephemeral parts, the last line included", async () => {
    const setup = await start();
    const { discord } = setup;
    const long = JSON.stringify({ text: `${"all work and no play\n".repeat(300)}THE END` });
    const parked = await parkRequest(
      setup.pipe.app,
      address,
      { tool: "send_message", arguments: long },
      { user: HUMAN, name: "Ada" },
    );
    const token = click(discord, clickPayload(`ap:${parked.id}:s`, {}, GUEST));
    await until(() => shown(discord, token));
    const parts = await until(() => {
      const more = discord.messages.filter((m) => m.interaction_token === token);
      return more.some((m) => m.content.includes("THE END")) ? more : undefined;
    });
    for (const part of [shown(discord, token)?.content ?? "", ...parts.map((m) => m.content)]) {
      expect(part.length).toBeLessThanOrEqual(2_000);
    }
    expect(parts.every((m) => m.flags === 64)).toBe(true);
  });

  it("take /approve as an application command", async () => {
    const setup = await start();
    const { discord } = setup;
    const request = await postedRequest(setup);
    const { d } = fixture("interaction-docs-button");
    const token = `itoken-approve-${Date.now()}`;
    discord.dispatch("INTERACTION_CREATE", {
      ...d,
      id: `12${String(Date.now()).slice(-13)}0001`,
      token,
      type: 2,
      application_id: FAKE_DISCORD.applicationId,
      guild_id: FAKE_DISCORD.guildId,
      channel_id: FAKE_DISCORD.channelId,
      channel: { id: FAKE_DISCORD.channelId, type: 0, guild_id: FAKE_DISCORD.guildId },
      member: { ...d.member, user: { ...d.member.user, id: HUMAN }, permissions: "0" },
      data: {
        id: "1500000000000000011",
        name: "approve",
        type: 1,
        options: [
          { type: 3, name: "id", value: request.id },
          { type: 5, name: "conversation", value: true },
        ],
      },
    });
    expect((await until(() => shown(discord, token)))?.content).toBe(
      "Approved for this conversation. The bot goes on.",
    );
  });
});

describe("a Discord turn that calls a tool under ask", () => {
  const counter = connectRedis();
  afterAll(() => counter.disconnect());

  /** A turn parked on its request; `timeoutMs` shortens how long the request waits. */
  async function startAsking(timeoutMs?: number) {
    const prefix = uniquePrefix("discord-ask");
    const setup = await startDiscordBot({
      tools: [deployTool(counter, prefix)],
      pipeline: {
        prefix,
        ...(timeoutMs === undefined
          ? {}
          : { approvals: { policy: () => ({ ...DEFAULT_APPROVAL_POLICY, timeoutMs }) } }),
      },
    });
    running.push(setup);
    setup.pipe.fake.script(
      { toolCalls: [{ id: "call_deploy", name: "deploy", arguments: { env: "prod" } }] },
      { content: "Deployed to prod." },
    );
    setup.discord.messageCreate({
      channelId: FAKE_DISCORD.channelId,
      authorId: HUMAN,
      content: `<@${FAKE_DISCORD.botUserId}> deploy prod`,
    });
    const wait = await parkedWait(setup.pipe.app.redis, setup.pipe.app.store, address);
    const request = structuredClone(setup.discord.messages.find((m) => m.id === wait.requestRef));
    return { setup, prefix, wait, request };
  }

  const answered = (setup: DiscordSetup) =>
    until(() =>
      botPosts(setup.discord, FAKE_DISCORD.channelId).some((m) => m.content === "Deployed to prod.")
        ? true
        : undefined,
    );

  it("asks with buttons; a stranger's click changes nothing; the requester's approval runs the tool once and the answer follows", async () => {
    const { setup, prefix, wait, request } = await startAsking();
    const { discord } = setup;
    expect(request?.content).toContain("Approval needed: the bot wants to run deploy.");
    expect(buttons(request).map((b) => b.label)).toEqual([
      "Approve",
      "Approve for this conversation",
      "Deny",
      "Show arguments",
    ]);

    const stranger = click(discord, clickPayload(`ap:${wait.id}:a`, request, GUEST));
    expect((await until(() => shown(discord, stranger)))?.content).toMatch(/^Only /);
    expect(await deployRuns(counter, prefix)).toBe(0);

    const approve = clickPayload(`ap:${wait.id}:a`, request, HUMAN);
    const token = click(discord, approve);
    expect((await until(() => shown(discord, token)))?.content).toBe("Approved. The bot goes on.");
    await answered(setup);
    expect(await deployRuns(counter, prefix)).toBe(1);
    const edited = discord.messages.find((m) => m.id === wait.requestRef);
    // Ada's name as Discord gives it (its cache holds her from the message she sent).
    expect(edited?.content).toMatch(/^Approved by ada: deploy\.$/i);
    expect(edited?.components).toEqual([]);

    // The gateway replays the click, and the requester clicks Deny on a stale client.
    click(discord, clickPayload(`ap:${wait.id}:a`, request, HUMAN, "0", approve));
    const late = click(discord, clickPayload(`ap:${wait.id}:d`, request, HUMAN));
    expect((await until(() => shown(discord, late)))?.content).toMatch(
      /^ada already approved this\.$/i,
    );
    await settle(300);
    expect(await deployRuns(counter, prefix)).toBe(1);
    expect(
      botPosts(discord, FAKE_DISCORD.channelId).filter((m) => m.content === "Deployed to prod."),
    ).toHaveLength(1);
  });

  it("tells the model nobody approved in time, edits the request once to say it expired, and answers a late click without running the tool", async () => {
    const { setup, prefix, wait, request } = await startAsking(1_500);
    const { discord } = setup;
    await answered(setup);
    const results = (setup.pipe.fake.requests[1]?.body.messages ?? []).filter(
      (m: { role: string }) => m.role === "tool",
    );
    expect(results.map((m: { content: string }) => m.content)).toEqual([
      "not run: nobody approved it within 2 s.",
    ]);
    const edited = discord.messages.find((m) => m.id === wait.requestRef);
    expect(edited?.content).toBe("Expired: nobody decided within 2 s, so deploy did not run.");
    expect(edited?.components).toEqual([]);
    const edits = discord.calls.filter(
      (c) => c.method === "PATCH" && c.path.endsWith(`/messages/${wait.requestRef}`),
    );
    expect(edits).toHaveLength(1);

    // The requester clicks Approve on a client that still shows the buttons.
    const late = click(discord, clickPayload(`ap:${wait.id}:a`, request, HUMAN));
    expect((await until(() => shown(discord, late)))?.content).toBe(
      "This request expired: nobody decided in time.",
    );
    await settle(300);
    expect(await deployRuns(counter, prefix)).toBe(0);
    expect(
      botPosts(discord, FAKE_DISCORD.channelId).filter((m) => m.content === "Deployed to prod."),
    ).toHaveLength(1);
  });

  it("gives the model who denied the call, and the turn answers", async () => {
    const { setup, prefix, wait, request } = await startAsking();
    const { discord } = setup;
    const token = click(discord, clickPayload(`ap:${wait.id}:d`, request, ADMIN, MANAGE_SERVER));
    expect((await until(() => shown(discord, token)))?.content).toBe(
      "Denied. The bot goes on without it.",
    );
    await answered(setup);
    const results = (setup.pipe.fake.requests[1]?.body.messages ?? []).filter(
      (m: { role: string }) => m.role === "tool",
    );
    expect(results.map((m: { content: string }) => m.content)).toEqual([
      expect.stringMatching(/^not run: .+ denied it\./),
    ]);
    expect(await deployRuns(counter, prefix)).toBe(0);
    expect(discord.messages.find((m) => m.id === wait.requestRef)?.components).toEqual([]);
  });
});
