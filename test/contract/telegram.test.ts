import { type OpsServer, startOpsServer } from "../../src/observability/http.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { BOB, BOT, startTelegram, TEAM } from "../fakes/telegram-setup.ts";
import { channelContract, type DriverSetup } from "./channel-contract.ts";

const SECRET = "webhook-secret_contract";

/**
 * The real grammY bot on the fake Bot API, by webhook, so a replay is what
 * Telegram does when it did not get the 200: the same update posted again.
 * The person is Bob in the team group, who administers nothing there;
 * messages for the model mention the bot, commands are typed as they are.
 */
async function startTelegramBot({ streamEditMs }: DriverSetup) {
  const ops: OpsServer = await startOpsServer({
    port: 0,
    host: "127.0.0.1",
    metrics: new Metrics(),
    ready: () => true,
  });
  const s = await startTelegram({
    streamEditMs,
    channel: { webhookUrl: `http://127.0.0.1:${ops.port}/telegram/updates`, webhookSecret: SECRET },
    runtime: { http: ops },
  });
  return {
    model: s.pipe.fake,
    maxLength: s.channel.outbound.maxLength,
    send: async (text: string) => {
      const typed = text.startsWith("/") ? text : `@${BOT.username} ${text}`;
      const update = s.telegram.userSends({ chat: TEAM, from: BOB, text: typed });
      return async () => {
        await s.telegram.postToWebhook(update, SECRET);
      };
    },
    said: () => s.telegram.botMessages(TEAM).map((m) => m.text ?? ""),
    edits: () => s.telegram.botMessages(TEAM).reduce((sum, m) => sum + (m.edits ?? 0), 0),
    async close() {
      await s.channel.stop();
      await s.pipe.close();
      await s.telegram.close();
      await ops.close();
    },
  };
}

channelContract("Telegram", startTelegramBot);
