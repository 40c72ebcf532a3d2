import { messageEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import { SLACK_SECRET, startSlackHarness } from "../support/slack-harness.ts";
import { channelContract, type DriverSetup } from "./channel-contract.ts";

/** Hugo, who administers nothing, in his DM with the bot. */
const MEMBER = { user: "U0HUMAN", dm: "D0HUMAN" };

/**
 * The real Bolt app over the Events API on the fake Web API. Commands are
 * typed with `!` (Slack's composer keeps `/` for slash commands); a replay
 * is Slack's retry of the same delivery, with the same event id.
 */
async function startSlack({ streamEditMs }: DriverSetup) {
  const h = await startSlackHarness({ pipeline: { streamEditMs } });
  const events = h.events[0] as string;
  const inDm = (call: { args: Record<string, unknown>; status?: number }) =>
    call.args.channel === MEMBER.dm && (call.status === undefined || call.status === 200);
  let deliveries = 0;
  return {
    model: h.pipe.fake,
    maxLength: h.channels[0]?.outbound.maxLength ?? 0,
    send: async (text: string) => {
      const typed = text.startsWith("/") ? `!${text.slice(1)}` : text;
      const event = messageEvent({
        text: typed,
        user: MEMBER.user,
        channel: MEMBER.dm,
        channelType: "im",
      });
      deliveries += 1;
      const eventId = `EvContract${deliveries}`;
      await sendEvent(events, SLACK_SECRET, event, { eventId });
      let retry = 0;
      return async () => {
        retry += 1;
        await sendEvent(events, SLACK_SECRET, event, { eventId, retryNum: retry });
      };
    },
    said: () =>
      h.slack.messages.filter((m) => m.channel === MEMBER.dm && m.bot_id).map((m) => m.text),
    edits: () => h.slack.callsTo("chat.update").filter(inDm).length,
    close: () => h.close(),
  };
}

channelContract("Slack", startSlack);
