import { describe, expect, it } from "vitest";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import {
  messageEvent,
  sendEvent,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import {
  type CommandDriver,
  configOf,
  type DriverOptions,
  itAnswersTheChatCommands,
  type Persona,
  skillOverTheLimitIsTooLong,
} from "../support/command-scenarios.ts";
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
