import { afterEach, describe, expect, it, vi } from "vitest";
import {
  blockActionPayload,
  sendBlockAction,
  sendSigned,
  sendSlashCommand,
} from "../../src/testing/fakes/slack-requests.ts";
import {
  SLACK_SECRET,
  type SlackHarness,
  settle,
  startSlackHarness,
} from "../support/slack-harness.ts";

let harness: SlackHarness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await harness?.close();
  harness = undefined;
});

/** Posts an interaction payload the way Slack does: form-encoded, the JSON in `payload`. */
const sendInteraction = (url: string, payload: unknown) =>
  sendSigned(
    url,
    SLACK_SECRET,
    new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
    "application/x-www-form-urlencoded",
    {},
  );

const user = { id: "U0HUMAN", username: "human", name: "human", team_id: "T0FAKETEAM" };
const team = { id: "T0FAKETEAM", domain: "fake-workspace" };

/** Interactions this bot registers nothing for, in the shapes bolt-python's scenario tests use. */
const UNHANDLED = {
  "a global shortcut": {
    type: "shortcut",
    token: "verification_token",
    action_ts: "1601000000.000000",
    team,
    user,
    is_enterprise_install: false,
    enterprise: null,
    callback_id: "test-shortcut",
    trigger_id: "111.222.shortcut",
  },
  "a message shortcut": {
    type: "message_action",
    token: "verification_token",
    action_ts: "1601000000.000001",
    team,
    user,
    channel: { id: "C0GENERAL", name: "general" },
    callback_id: "test-message-shortcut",
    trigger_id: "111.222.message",
    message_ts: "1601000000.000001",
    message: { type: "message", text: "hi", user: "U0HUMAN", ts: "1601000000.000001" },
    response_url: "http://127.0.0.1:9/response/unset",
  },
  "a view_submission": {
    type: "view_submission",
    team,
    user,
    api_app_id: "A0FAKEAPP",
    token: "verification_token",
    trigger_id: "111.222.view",
    view: {
      id: "V0001",
      team_id: "T0FAKETEAM",
      type: "modal",
      callback_id: "view-id",
      state: { values: {} },
    },
  },
  "a view_closed": {
    type: "view_closed",
    team,
    user,
    api_app_id: "A0FAKEAPP",
    token: "verification_token",
    view: { id: "V0002", team_id: "T0FAKETEAM", type: "modal", callback_id: "view-id" },
    is_cleared: false,
  },
};

describe("Slack interactions the bot has no handler for", () => {
  it("answers an unknown slash command at once, saying which commands it knows", async () => {
    harness = await startSlackHarness();
    const errors = vi.spyOn(console, "error");
    const [url] = harness.events as [string];
    const answer = await sendSlashCommand(url, SLACK_SECRET, { command: "/foo", text: "bar" });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ response_type: "ephemeral" });
    expect(answer.body.text).toMatch(/I don't know \/foo/);
    expect(answer.body.text).toMatch(/\/tools/);
    expect(errors).not.toHaveBeenCalled();
  });

  it("acknowledges a click on a control it did not make", async () => {
    harness = await startSlackHarness();
    const [url] = harness.events as [string];
    const errors = vi.spyOn(console, "error");
    const clicked = await sendBlockAction(url, SLACK_SECRET, {
      actionId: "someone-elses-button",
      value: "x",
      messageTs: "1700000000.000100",
    });
    expect(clicked.status).toBe(200);
    await settle(100);
    expect(harness.slack.responses).toHaveLength(0);
    expect(errors).not.toHaveBeenCalled();
  });

  it.each(Object.entries(UNHANDLED))("acknowledges %s", async (_, payload) => {
    harness = await startSlackHarness();
    const [url] = harness.events as [string];
    const errors = vi.spyOn(console, "error");
    const answer = await sendInteraction(url, payload);
    expect(answer.status).toBe(200);
    expect(errors).not.toHaveBeenCalled();
  });

  it("answers a block_suggestion for a select it did not make with no options", async () => {
    harness = await startSlackHarness();
    const [url] = harness.events as [string];
    const answer = await sendInteraction(url, {
      type: "block_suggestion",
      user,
      team,
      container: { type: "message", message_ts: "1700000000.000100", channel_id: "C0GENERAL" },
      api_app_id: "A0FAKEAPP",
      action_id: "someone-elses-select",
      block_id: "b1",
      value: "ma",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ options: [] });
  });

  it("acknowledges unknown commands and interactions over Socket Mode too", async () => {
    harness = await startSlackHarness({ mode: "socket" });
    const socket = harness.socket as NonNullable<SlackHarness["socket"]>;
    const answer = await socket.sendSlashCommand({ command: "/foo" });
    expect(answer.payload.text).toMatch(/I don't know \/foo/);
    const shortcut = await socket.send("interactive", UNHANDLED["a global shortcut"]);
    expect(shortcut.payload).toEqual({});
    const click = await socket.send(
      "interactive",
      blockActionPayload({ actionId: "someone-elses-button", messageTs: "1700000000.000100" }),
    );
    expect(click.payload).toEqual({});
  });
});
