import { describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import {
  ADA,
  ALICE,
  BOB,
  BOT,
  TEAM,
  type TelegramSetup,
  useTelegram,
} from "../fakes/telegram-setup.ts";
import { until } from "../support/channels.ts";

const setups = useTelegram();

const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

/** Ada owns the bot; everything else is the product's defaults unless a test says more. */
function config(extra = ""): SwitchyardConfig {
  return parseConfig(`permissions:\n  owners: [telegram:${ADA.id}]\n${extra}`, "switchyard.yaml");
}

async function start(cfg: SwitchyardConfig) {
  const setup = await setups.start({ config: () => cfg });
  setup.telegram.addChat({ id: ADA.id, type: "private", title: "Ada" });
  return setup;
}

const textsTo = (setup: TelegramSetup, chat: number) =>
  setup.telegram.botMessages(chat).map((m) => m.text ?? "");

async function waitForTexts(setup: TelegramSetup, chat: number, count: number) {
  return until(() => {
    const texts = textsTo(setup, chat);
    return texts.length >= count ? texts : undefined;
  });
}

describe("who may talk to the Telegram bot", () => {
  it("gives a stranger in a DM a pairing code, answers them once an owner approves it", async () => {
    const setup = await start(config());
    const { telegram, pipe } = setup;
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello?" });
    const [pairing = ""] = await waitForTexts(setup, ALICE.id, 1);
    const code = /pairing code is ([A-Z2-9]{8})/.exec(pairing)?.[1];
    expect(code).toBeDefined();
    expect(pairing).toContain(`/access approve ${code}`);
    expect(pairing).toContain(`telegram:${ALICE.id}`);

    // Asking again within the interval is not answered again, and nothing reaches the model.
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "anyone there?" });
    await settle();
    expect(textsTo(setup, ALICE.id)).toHaveLength(1);
    expect(pipe.fake.requests).toHaveLength(0);

    telegram.userSends({ chat: ADA.id, from: ADA, text: `/access approve ${code}` });
    const [approved = ""] = await waitForTexts(setup, ADA.id, 1);
    expect(approved).toContain(`Approved Alice (telegram:${ALICE.id})`);

    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "now?" });
    const texts = await waitForTexts(setup, ALICE.id, 2);
    expect(texts[1]).toBe("echo: now?");
    expect(pipe.fake.requests).toHaveLength(1);

    // A code works once.
    telegram.userSends({ chat: ADA.id, from: ADA, text: `/access approve ${code}` });
    const again = await waitForTexts(setup, ADA.id, 2);
    expect(again[1]).toContain(`No live pairing code ${code}`);
  });

  it("lists and revokes approvals for the owner, and refuses a stranger's /access", async () => {
    const setup = await start(config());
    const { telegram } = setup;
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hi" });
    const [pairing = ""] = await waitForTexts(setup, ALICE.id, 1);
    const code = /pairing code is ([A-Z2-9]{8})/.exec(pairing)?.[1] ?? "";
    telegram.userSends({ chat: ADA.id, from: ADA, text: "/access list" });
    const [listed = ""] = await waitForTexts(setup, ADA.id, 1);
    expect(listed).toContain("Direct messages: pairing; groups: open.");
    expect(listed).toContain(`Waiting for approval:\n- Alice (telegram:${ALICE.id})`);

    telegram.userSends({ chat: ADA.id, from: ADA, text: `/access approve ${code}` });
    await waitForTexts(setup, ADA.id, 2);
    telegram.userSends({ chat: ADA.id, from: ADA, text: `/access revoke telegram:${ALICE.id}` });
    const texts = await waitForTexts(setup, ADA.id, 3);
    expect(texts[2]).toContain(`Revoked telegram:${ALICE.id}`);

    // Revoked: Alice is a stranger again (told so already, so not again), and her commands are not run.
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "/access list" });
    telegram.userSends({ chat: ALICE.id, from: ALICE, text: "hello again" });
    await settle();
    expect(textsTo(setup, ALICE.id)).toHaveLength(1);
    expect(setup.pipe.fake.requests).toHaveLength(0);
  });

  it("says once that a group is not allowed, and leaves it", async () => {
    const setup = await start(config("access:\n  groups: allowlist\n"));
    const { telegram, pipe } = setup;
    telegram.userSends({ chat: TEAM, from: BOB, text: `@${BOT.username} hi` });
    const [refusal = ""] = await waitForTexts(setup, TEAM, 1);
    expect(refusal).toContain(`This group is not on this bot's allow list (telegram:chat:${TEAM})`);
    await until(() => (telegram.callsTo("leaveChat").length > 0 ? true : undefined));
    expect(telegram.callsTo("leaveChat")[0]?.params.chat_id).toBe(TEAM);
    telegram.userSends({ chat: TEAM, from: BOB, text: `@${BOT.username} hello??` });
    await settle();
    expect(textsTo(setup, TEAM)).toHaveLength(1);
    expect(pipe.fake.requests).toHaveLength(0);
  });

  it("says so when added to a group that is not allowed, and leaves before anyone asks", async () => {
    const setup = await start(config("access:\n  groups: allowlist\n"));
    const { telegram } = setup;
    const bot = { id: BOT.id, is_bot: true, first_name: "Switchyard", username: BOT.username };
    telegram.userSends({ chat: TEAM, from: BOB, extra: { new_chat_members: [bot] } });
    const [refusal = ""] = await waitForTexts(setup, TEAM, 1);
    expect(refusal).toContain("so the bot is leaving it");
    await until(() => (telegram.callsTo("leaveChat").length > 0 ? true : undefined));
  });

  it("stays in a group an owner added it to", async () => {
    const setup = await start(config("access:\n  groups: allowlist\n"));
    const { telegram } = setup;
    const bot = { id: BOT.id, is_bot: true, first_name: "Switchyard", username: BOT.username };
    telegram.userSends({ chat: TEAM, from: ADA, extra: { new_chat_members: [bot] } });
    telegram.userSends({ chat: TEAM, from: ADA, text: `@${BOT.username} hello team` });
    const [answer] = await waitForTexts(setup, TEAM, 1);
    expect(answer).toBe("echo: hello team");
    expect(telegram.callsTo("leaveChat")).toHaveLength(0);
  });

  it("stays silent in a group it is not let into when told to", async () => {
    const setup = await start(config("access:\n  groups: closed\n  on_refused_group: silent\n"));
    const { telegram, pipe } = setup;
    telegram.userSends({ chat: TEAM, from: BOB, text: `@${BOT.username} hi` });
    await settle();
    await settle();
    expect(textsTo(setup, TEAM)).toHaveLength(0);
    expect(telegram.callsTo("leaveChat")).toHaveLength(0);
    expect(pipe.fake.requests).toHaveLength(0);
  });

  it("answers 20 of 25 messages under user: 20/10m, says so once, then stays silent", async () => {
    const setup = await start(config("access:\n  dm: open\nlimits:\n  user: 20/10m\n"));
    const { telegram, pipe } = setup;
    for (let i = 1; i <= 20; i++) {
      telegram.userSends({ chat: ALICE.id, from: ALICE, text: `message ${i}` });
      await waitForTexts(setup, ALICE.id, i);
    }
    for (let i = 21; i <= 25; i++) {
      telegram.userSends({ chat: ALICE.id, from: ALICE, text: `message ${i}` });
    }
    const texts = await waitForTexts(setup, ALICE.id, 21);
    await settle();
    expect(textsTo(setup, ALICE.id)).toHaveLength(21);
    expect(texts.slice(0, 20)).toEqual(
      Array.from({ length: 20 }, (_, i) => `echo: message ${i + 1}`),
    );
    expect(texts[20]).toMatch(
      /^That is over the limit of 20 messages per 10 minutes for one person \(limits\.user: 20\/10m\), so I did not read it\. You can write again in (9|10) minutes \(at \d\d:\d\d UTC\)\.$/,
    );
    expect(pipe.fake.requests).toHaveLength(20);
  });
});
