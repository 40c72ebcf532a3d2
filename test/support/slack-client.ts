import { WebClient } from "@slack/web-api";
import { afterEach } from "vitest";
import {
  FAKE_SLACK,
  type FakeSlackApi,
  startFakeSlackApi,
} from "../../src/testing/fakes/slack-api.ts";

/**
 * A fake Slack Web API and a real WebClient on it (no retries), for tests of
 * the fake itself or of one Slack call; each test's fake closes after it.
 */
export function useFakeSlackClient(): () => Promise<{ fake: FakeSlackApi; web: WebClient }> {
  let fake: FakeSlackApi | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  return async () => {
    fake = await startFakeSlackApi();
    const web = new WebClient(FAKE_SLACK.botToken, {
      slackApiUrl: fake.url,
      retryConfig: { retries: 0 },
    });
    return { fake, web };
  };
}
