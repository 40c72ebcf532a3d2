import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeSlackEvent, readMessageEvent } from "../../src/platforms/slack/normalize.ts";
import {
  actionEventId,
  commandEventId,
  installationTeam,
  messageEventId,
  payloadKind,
  unhandledAck,
} from "../../src/platforms/slack/payload.ts";
import { formFields, slackFixtures } from "../fakes/slack-fixtures.ts";
import { slackish } from "../support/slack-arbitraries.ts";

const OWN = "T0OWNTEAM";
const events = slackFixtures("events");
const interactive = slackFixtures("interactive");
const commands = slackFixtures("commands");

describe("the installation's team", () => {
  it.each(events.filter((f) => typeof f.body?.authorizations?.[0]?.team_id === "string"))(
    "is authorizations[0].team_id in $name",
    (f) => {
      expect(installationTeam(f.body, OWN)).toBe(f.body.authorizations[0].team_id);
    },
  );

  it("is never the sender's team where a Slack Connect envelope names both", () => {
    const split = events.filter(
      (f) =>
        f.body?.authorizations?.[0]?.team_id && f.body.team_id !== f.body.authorizations[0].team_id,
    );
    expect(split.length).toBeGreaterThan(5);
    for (const f of split) expect(installationTeam(f.body, OWN)).not.toBe(f.body.team_id);
  });

  it("is the bot's own team for payloads without authorizations, not their team_id", () => {
    const old = events.filter((f) => f.body?.type === "event_callback" && !f.body.authorizations);
    expect(old.length).toBeGreaterThan(3);
    for (const f of old) expect(installationTeam(f.body, OWN)).toBe(OWN);
    for (const f of interactive.filter((f) => !f.payload.view?.app_installed_team_id)) {
      expect(installationTeam(f.payload, OWN)).toBe(OWN);
    }
  });

  it("is a view's app_installed_team_id, not the guest's team", () => {
    const connect = interactive.find((f) => f.name.endsWith("view-submission-slack-connect"));
    expect(connect?.payload.team.id).toBe("T0GUESTSIDE");
    expect(installationTeam(connect?.payload, OWN)).toBe("T0HOSTSIDE");
  });

  it("is the payload's team only when the bot's own team is unknown", () => {
    expect(installationTeam({ team_id: "T1" }, "")).toBe("T1");
    expect(installationTeam({ team: { id: "T2" } }, "")).toBe("T2");
  });

  it("is a string for any body, and always authorizations[0].team_id when Slack names it", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), slackish), fc.string(), (body, own) => {
        const team = installationTeam(body, own);
        expect(typeof team).toBe("string");
        const named = (body as { authorizations?: { team_id?: unknown }[] } | null)?.authorizations;
        if (Array.isArray(named) && typeof named[0]?.team_id === "string" && named[0].team_id) {
          expect(team).toBe(named[0].team_id);
        }
      }),
    );
  });
});

describe("payload kinds and ids", () => {
  it("reads every stored payload as the kind Bolt routes it as", () => {
    for (const f of events) {
      expect(payloadKind(f.body), f.name).toBe(f.body.event ? "event" : "other");
    }
    for (const f of commands) {
      expect(payloadKind(formFields(f.form as string)), f.name).toBe(
        f.name.endsWith("ssl-check") ? "other" : "command",
      );
    }
    const kinds = Object.fromEntries(interactive.map((f) => [f.name, payloadKind(f.payload)]));
    expect(kinds).toEqual({
      "interactive/attachment-actions": "action",
      "interactive/block-actions": "action",
      "interactive/block-suggestion": "options",
      "interactive/dialog-cancellation": "other",
      "interactive/dialog-submission": "action",
      "interactive/dialog-suggestion": "options",
      "interactive/shortcut-global": "shortcut",
      "interactive/shortcut-message": "shortcut",
      "interactive/view-closed": "view",
      "interactive/view-submission": "view",
      "interactive/view-submission-slack-connect": "view",
    });
  });

  it("gives no kind to a body that is not an object", () => {
    for (const body of [null, 5, "x", [], [{}], true]) expect(payloadKind(body)).toBeUndefined();
  });

  it("ids a command by trigger_id, and a legacy one without it not at all", () => {
    const [legacy, hello] = ["docs-weather-legacy", "hello-world"].map((n) =>
      formFields(commands.find((f) => f.name === `commands/${n}`)?.form as string),
    );
    expect(commandEventId(hello)).toBe("command:7318211847.5517.2d9f4b7e0c1a");
    expect(commandEventId(legacy)).toBeUndefined();
  });

  it("ids a click by trigger_id, else by message, action_ts and user", () => {
    const click = interactive.find((f) => f.name === "interactive/block-actions")?.payload;
    expect(actionEventId(click)).toBe(`action:${click.trigger_id}`);
    const { trigger_id: _, ...untriggered } = click;
    expect(actionEventId(untriggered)).toBe(
      `action:${click.container.message_ts}:${click.actions[0].action_ts}:${click.user.id}`,
    );
    expect(actionEventId({ actions: [null], container: 5 })).toBeUndefined();
  });

  it("ids a message by channel and ts, the same for its app_mention twin", () => {
    expect(messageEventId("C1", "1.2")).toBe("message:C1:1.2");
  });

  it("never throws on any body", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), slackish), (body) => {
        const kind = payloadKind(body);
        commandEventId(body);
        actionEventId(body);
        if (kind) unhandledAck(kind, body, ["/tools", "/skills"]);
      }),
    );
  });

  it("tells the sender of an unknown command which commands there are", () => {
    expect(
      unhandledAck("command", { command: "/foo" }, ["/tools", "/skills", "/switchyard"]),
    ).toEqual({
      response_type: "ephemeral",
      text: "I don't know /foo. I answer /tools, /skills and /switchyard; in a thread, type !help for the commands.",
    });
    expect(unhandledAck("options", {}, [])).toEqual({ options: [] });
    expect(unhandledAck("shortcut", {}, [])).toBeUndefined();
  });
});

describe("reading a message event", () => {
  const options = { teamId: OWN, botUserId: "W0LW4BKQ2", session: "thread" as const };

  it("puts every stored message in the installation's workspace, never the sender's team", () => {
    for (const f of events) {
      const e = readMessageEvent(f.body?.event);
      const message = e && normalizeSlackEvent(e, options);
      if (message) expect(message.workspace, f.name).toBe(OWN);
    }
  });

  it("answers only what someone said: notices, edits, joins and canvas mentions are not messages", () => {
    const said = events
      .map((f) => [f.name, readMessageEvent(f.body?.event)] as const)
      .filter(([, e]) => e && normalizeSlackEvent(e, options))
      .map(([name]) => name);
    for (const name of said) {
      expect(name).not.toMatch(
        /changed|deleted|channel-join|channel-name|channel-leave|document-mention/,
      );
    }
    expect(said).toEqual(expect.arrayContaining(["events/app-mention", "events/docs-me-message"]));
  });

  it("keeps well-typed fields and drops ill-typed ones, never throwing", () => {
    expect(
      readMessageEvent({ type: "message", text: 5, ts: "1.2", files: [{ id: 3 }, { id: "F1" }] }),
    ).toEqual({
      type: "message",
      ts: "1.2",
      files: [{ id: "F1" }],
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          slackish.map((b) => b.event),
        ),
        (event) => {
          const e = readMessageEvent(event);
          if (e) normalizeSlackEvent(e, options);
        },
      ),
    );
  });
});
