import { createBot, slackChannel } from "switchyard";
import { persona, stockLevel } from "./parts.js";

// The bot in production: its tool and persona on Slack (Socket Mode).
const bot = createBot({
  tools: [stockLevel],
  persona,
  channels: [
    slackChannel({
      botToken: process.env.SLACK_BOT_TOKEN ?? "",
      appToken: process.env.SLACK_APP_TOKEN ?? "",
    }),
  ],
});
await bot.start();
process.once("SIGTERM", () => void bot.stop());
