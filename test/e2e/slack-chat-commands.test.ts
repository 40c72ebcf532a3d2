import { describe } from "vitest";
import { FAKE_SLACK } from "../fakes/slack-api.ts";
import { messageEvent, sendEvent, sendSlashCommand } from "../fakes/slack-requests.ts";
import {
  type CommandDriver,
  configOf,
  type DriverOptions,
  itAnswersTheChatCommands,
  type Persona,
} from "../support/command-scenarios.ts";
import { SLACK_SECRET, startSlackHarness } from "../support/slack-harness.ts";

const PEOPLE = {
  member: { user: "U0HUMAN", dm: "D0HUMAN" },
  admin: { user: "U0ADMIN", dm: "D0ADMIN" },
} as const;

/**
 * The Slack app on the fake Web API, each persona in their own DM: commands
 * typed in a message (with `!`, as Slack's composer keeps `/` for slash
 * commands) or sent as slash commands, whose answers are the private acks.
 */
function slackDriver(commands: "typed" | "slash") {
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
        if (command && commands === "slash") {
          const answer = await sendSlashCommand(events, SLACK_SECRET, {
            command: `/${command[1]}`,
            text: command[2] ?? "",
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

for (const commands of ["typed", "slash"] as const) {
  const start = slackDriver(commands);
  describe(`chat commands in Slack, ${commands === "typed" ? "typed in a DM" : "as slash commands"}`, () => {
    itAnswersTheChatCommands(start, "DM");
  });
}
