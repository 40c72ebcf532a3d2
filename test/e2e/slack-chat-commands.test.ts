import { describe, expect, it } from "vitest";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  messageEvent,
  sendEvent,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import { until } from "../support/channels.ts";
import {
  type CommandDriver,
  configOf,
  type DriverOptions,
  itAnswersTheChatCommands,
  type Persona,
  skillOverTheLimitIsTooLong,
} from "../support/command-scenarios.ts";
import { scheduleAddFromChat } from "../support/schedule-scenarios.ts";
import { SLACK_SECRET, startSlackHarness, useSlackHarness } from "../support/slack-harness.ts";

const PEOPLE = {
  member: { user: "U0HUMAN", dm: "D0HUMAN" },
  admin: { user: "U0ADMIN", dm: "D0ADMIN" },
} as const;

/**
 * The Slack app on the fake Web API, each persona in their own DM: commands
 * typed in a message (with `!`, as Slack's composer keeps `/` for slash
 * commands) or sent as slash commands, whose answers are the private acks.
 */
function slackDriver(commands: "typed" | "slash" | "switchyard") {
  return async (options: DriverOptions): Promise<CommandDriver> => {
    const config = configOf(options.config, `slack:${PEOPLE.admin.user}`);
    const h = await startSlackHarness({
      config,
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.stopTurn ? { stopTurn: options.stopTurn } : {}),
    });
    const events = h.events[0] as string;
    const acks: Record<Persona, string[]> = { member: [], admin: [] };
    return {
      pipe: h.pipe,
      address: (who) => ({
        platform: "slack",
        workspace: FAKE_SLACK.teamId,
        channel: PEOPLE[who].dm,
        conversation: PEOPLE[who].dm,
      }),
      say: async (text, who = "member") => {
        const { user, dm } = PEOPLE[who];
        const command = /^\/(\w+)\s*([\s\S]*)$/.exec(text);
        if (command && commands !== "typed") {
          // As the manifests register them: /switchyard new, or (uncommented) the bare /new.
          const [name, args] = [command[1] ?? "", command[2] ?? ""];
          const answer = await sendSlashCommand(events, SLACK_SECRET, {
            command: commands === "slash" ? `/${name}` : "/switchyard",
            text: commands === "slash" ? args : `${name} ${args}`.trim(),
            userId: user,
            channelId: dm,
          });
          acks[who].push(String(answer.body?.text ?? answer.body));
          return;
        }
        const typed = command ? `!${text.slice(1)}` : text;
        await sendEvent(
          events,
          SLACK_SECRET,
          messageEvent({ text: typed, user, channel: dm, channelType: "im" }),
        );
      },
      said: (who = "member") => [
        ...h.slack.messages
          .filter((m) => m.channel === PEOPLE[who].dm && m.bot_id)
          .map((m) => m.text),
        ...acks[who],
      ],
      close: () => h.close(),
    };
  };
}

const HOW = {
  typed: "typed in a DM",
  slash: "as bare slash commands",
  switchyard: "as /switchyard <command>",
} as const;

for (const commands of ["typed", "slash", "switchyard"] as const) {
  const start = slackDriver(commands);
  describe(`chat commands in Slack, ${HOW[commands]}`, () => {
    itAnswersTheChatCommands(start, "DM");
  });
}

describe("/skill over the limit in Slack, typed in a DM", () => {
  it("answers a /skill whose instructions carry the request over the limit as too long", () =>
    skillOverTheLimitIsTooLong(slackDriver("typed")));
});

describe("/switchyard in Slack", () => {
  const start = useSlackHarness();

  it("answers /switchyard alone with the help, and a word it does not know with where to look", async () => {
    const h = await start({ config: configOf("", `slack:${PEOPLE.admin.user}`) });
    const events = h.events[0] as string;
    const ask = async (text: string) => {
      const answer = await sendSlashCommand(events, SLACK_SECRET, {
        command: "/switchyard",
        text,
        userId: PEOPLE.member.user,
        channelId: PEOPLE.member.dm,
      });
      return String(answer.body?.text);
    };
    const help = await ask("");
    expect(help).toBe(await ask("help"));
    expect(help).toMatch(/^\/new \[--all\] - /m);
    expect(help).toMatch(/As a slash command: \/switchyard new, \/switchyard usage/);
    expect(await ask("frobnicate now")).toBe(
      "/switchyard frobnicate is not a command I know. /switchyard help lists the ones you can use here.",
    );
    // Nothing reached the model: neither line was a message.
    expect(h.pipe.fake.requests).toHaveLength(0);
  });
});

describe("/schedule in Slack", () => {
  for (const commands of ["typed", "switchyard"] as const) {
    it(`${HOW[commands]}: refuses a member a schedule into a channel and the workspace's list; makes, lists and removes an admin's`, () =>
      scheduleAddFromChat(slackDriver(commands), { refusedTarget: " in <#C0OPS|ops>" }));
  }
});

describe("/schedule into a channel named in Slack", () => {
  const start = useSlackHarness();

  it("finds #news through the directory for an admin, and names a channel the bot is not in", async () => {
    const h = await start({ config: configOf("", `slack:${PEOPLE.admin.user}`) });
    h.slack.channels.set("C0NEWS", {
      name: "news",
      members: [PEOPLE.admin.user, FAKE_SLACK.botUserId],
    });
    h.slack.channels.set("C0ELSEWHERE", { name: "elsewhere", members: [PEOPLE.admin.user] });
    const events = h.events[0] as string;
    const say = (text: string) =>
      sendEvent(
        events,
        SLACK_SECRET,
        messageEvent({
          text,
          user: PEOPLE.admin.user,
          channel: PEOPLE.admin.dm,
          channelType: "im",
        }),
      );
    const said = (pattern: RegExp) =>
      until(
        () =>
          h.slack.messages.find(
            (m) => m.channel === PEOPLE.admin.dm && m.bot_id && pattern.test(m.text),
          )?.text,
      );
    // Slack sends a picked channel as <#C0NEWS|news>; the bot reads it as #news.
    await say('!schedule add "every 2h" check the deploy queue in <#C0NEWS|news>');
    const made = await said(/^Scheduled s\d+ in <#C0NEWS>, running as you/);
    expect(made).toMatch(/When: every 2h\nNext runs: /);
    const [stored] = await h.pipe.app.scheduleDesk.list();
    expect(stored?.schedule.target).toMatchObject({
      platform: "slack",
      workspace: FAKE_SLACK.teamId,
      channel: "C0NEWS",
      conversation: "C0NEWS",
      kind: "group",
    });
    await say('!schedule add "every 2h" check the deploy queue in <#C0ELSEWHERE|elsewhere>');
    await said(/^I am not in a channel called #elsewhere here\. Check the name, or invite me/);
  });
});
