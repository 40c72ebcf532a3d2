import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SLACK_COMMANDS } from "../../src/platforms/slack/commands.ts";
import {
  missingSlackScopes,
  requiredSlackScopes,
  SLACK_EVENTS,
  SLACK_METHODS,
} from "../../src/platforms/slack/scopes.ts";
import {
  SLACK_SHARED_COMMANDS,
  SLACK_SWITCHYARD_COMMAND,
} from "../../src/platforms/slack/shared-commands.ts";
import { ROOT, readRepoFile } from "../support/deploy.ts";

const http = parse(readRepoFile("deploy/slack/manifest.yaml"));
const socket = parse(readRepoFile("deploy/slack/manifest.socket-mode.yaml"));

/** The WebClient's own helpers, and the Web API methods each of them calls. */
const HELPERS: Record<string, string[]> = {
  filesUploadV2: ["files.getUploadURLExternal", "files.completeUploadExternal"],
  chatStream: ["chat.startStream", "chat.appendStream", "chat.stopStream"],
};

/** Every `client.<family>.<method>(` call in the Slack channel's source, e.g. "chat.postMessage". */
function methodsTheCodeCalls(): string[] {
  const dir = join(ROOT, "src/platforms/slack");
  const called = new Set<string>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts"))) {
    const source = readFileSync(join(dir, file), "utf8");
    for (const match of source.matchAll(
      /client\.((?:[a-z]+\.)+[a-zA-Z]+)\s*(?:\(|\n\s*\.[a-zA-Z]+\()/g,
    )) {
      called.add(match[1] as string);
    }
    // A call split over lines: `client.assistant.threads\n .setStatus(`.
    for (const match of source.matchAll(/client\.([a-z]+\.[a-z]+)\s*\n\s*\.([a-zA-Z]+)\(/g)) {
      called.add(`${match[1]}.${match[2]}`);
      called.delete(match[1] as string);
    }
    for (const match of source.matchAll(/client\.([a-zA-Z0-9]+)\(/g)) {
      for (const method of HELPERS[match[1] as string] ?? []) called.add(method);
    }
  }
  return [...called].sort();
}

describe("the Slack app manifests in deploy/slack", () => {
  it("lists every Web API method the channel calls with its scopes", () => {
    expect(methodsTheCodeCalls()).toEqual(Object.keys(SLACK_METHODS).sort());
  });

  it("ask for exactly the bot scopes the code needs, no more and no fewer", () => {
    for (const manifest of [http, socket]) {
      expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(requiredSlackScopes());
    }
    // What the first manifest lacked: send_message failed with missing_scope without them.
    expect(requiredSlackScopes()).toEqual(expect.arrayContaining(["channels:read", "groups:read"]));
    expect(requiredSlackScopes()).not.toContain("reactions:write");
    // Files people share are downloaded with the bot token: files:read, for attachments.
    expect(requiredSlackScopes()).toContain("files:read");
  });

  it("subscribe to every event and command the Slack channel handles, and let people DM the bot", () => {
    for (const manifest of [http, socket]) {
      expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(
        Object.keys(SLACK_EVENTS).sort(),
      );
      // /tools, /skills and one /switchyard for the rest: nothing workspace-wide that
      // another app's /help or /new would clash with.
      expect(manifest.features.slash_commands.map((c: { command: string }) => c.command)).toEqual([
        ...SLACK_COMMANDS,
        SLACK_SWITCHYARD_COMMAND,
      ]);
      expect(manifest.features.app_home).toMatchObject({
        messages_tab_enabled: true,
        messages_tab_read_only_enabled: false,
      });
      expect(manifest.settings.interactivity.is_enabled).toBe(true);
    }
  });

  it("open the assistant pane, with at most four suggested prompts, its events and assistant:write", () => {
    for (const manifest of [http, socket]) {
      const view = manifest.features.assistant_view;
      expect(view.assistant_description).toEqual(expect.any(String));
      expect(view.suggested_prompts.length).toBeGreaterThan(0);
      expect(view.suggested_prompts.length).toBeLessThanOrEqual(4);
      for (const prompt of view.suggested_prompts) {
        expect(prompt).toEqual({ title: expect.any(String), message: expect.any(String) });
      }
      expect(manifest.settings.event_subscriptions.bot_events).toEqual(
        expect.arrayContaining([
          "assistant_thread_started",
          "assistant_thread_context_changed",
          "message.im",
        ]),
      );
      expect(manifest.oauth_config.scopes.bot).toContain("assistant:write");
    }
  });

  it("offer the bare shared commands commented out, each one the app answers", () => {
    for (const file of ["manifest.yaml", "manifest.socket-mode.yaml"]) {
      const text = readRepoFile(`deploy/slack/${file}`);
      const commented = [...text.matchAll(/^\s*# - command: (\/\w+)$/gm)].map((m) => m[1]);
      expect(commented, file).toEqual([...SLACK_SHARED_COMMANDS]);
    }
  });

  it("point the HTTP app at /slack/events, and the Socket Mode app at no URL", () => {
    expect(http.settings.socket_mode_enabled).toBe(false);
    for (const url of [
      http.settings.event_subscriptions.request_url,
      http.settings.interactivity.request_url,
      ...http.features.slash_commands.map((c: { url: string }) => c.url),
    ]) {
      expect(new URL(url).pathname).toBe("/slack/events");
    }
    expect(socket.settings.socket_mode_enabled).toBe(true);
    expect(readRepoFile("deploy/slack/manifest.socket-mode.yaml")).not.toMatch(/url:/);
  });

  it("names, for a token without a scope, what the scope is needed for", () => {
    const granted = requiredSlackScopes().filter((scope) => scope !== "channels:read");
    expect(missingSlackScopes(granted)).toEqual([
      {
        scope: "channels:read",
        for: ["conversations.info", "conversations.members", "users.conversations"],
      },
    ]);
    expect(missingSlackScopes(requiredSlackScopes())).toEqual([]);
  });
});
