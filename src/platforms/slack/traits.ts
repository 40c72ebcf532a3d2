import type { PlatformTraits } from "../platform-traits.ts";

/**
 * Slack as the bot knows it before @slack/bolt is imported (see
 * lazy-channel.ts). Slack shows about 4,000 characters of a message before
 * "Show more"; mrkdwn conversion adds a little.
 */
export const SLACK_TRAITS: PlatformTraits = Object.freeze({
  platform: "slack",
  sdk: "@slack/bolt and @slack/web-api",
  maxLength: 3_500,
  canEdit: true,
  activity: "indicator",
  // Soon enough to show a short tool; parallel calls started together are one status.
  activityEveryMs: 250,
  mention: (user: string) => `<@${user}>`,
});
