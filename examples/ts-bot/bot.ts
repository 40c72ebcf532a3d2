import { type Channel, consoleChannel, createBot, defineTool, slackChannel } from "switchyard";
import { z } from "zod";

/** Who is on call this week: a tool of the bot's own, typed from its zod schema. */
const onCall = defineTool({
  id: "on_call",
  description: "Who is on call for a team this week.",
  parameters: z.object({ team: z.enum(["platform", "payments", "mobile"]) }),
  execute: ({ team }) => {
    const rota = { platform: "Ada", payments: "Grace", mobile: "Linus" } as const;
    return `${rota[team]} is on call for ${team} this week.`;
  },
});

const { SLACK_BOT_TOKEN, SLACK_APP_TOKEN } = process.env;
// Without Slack tokens, a conversation in this terminal; it ends with its input (Ctrl-D).
const terminal = consoleChannel();
const channels: Channel[] =
  SLACK_BOT_TOKEN && SLACK_APP_TOKEN
    ? [slackChannel({ botToken: SLACK_BOT_TOKEN, appToken: SLACK_APP_TOKEN })]
    : [terminal];

const bot = createBot({
  tools: [onCall],
  persona:
    "You are Ada, the platform team's helper. Answer in two sentences, and name who is on call when asked.",
  channels,
});

await bot.start();
process.once("SIGTERM", () => void bot.stop());
process.once("SIGINT", () => void bot.stop());
if (channels.includes(terminal)) {
  await terminal.finished; // Ctrl-D, every answer printed
  await bot.stop();
}
