import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/core/tools/tool.ts";
import { FAKE_SLACK } from "../../src/testing/fakes/slack-api.ts";
import { appMentionEvent, sendEvent } from "../../src/testing/fakes/slack-requests.ts";
import { parkedWait } from "../support/approvals.ts";
import { blockKitPage } from "../support/block-kit-html.ts";
import { SLACK_SECRET, useSlackHarness } from "../support/slack-harness.ts";

/** Debian's chromium, as the console's browser test drives it; CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FOUND = existsSync(CHROMIUM);
const REQUIRED = process.env.CONSOLE_BROWSER_TEST === "1";
/**
 * Where the request's picture goes: a temporary file unless
 * APPROVAL_SCREENSHOT names one. Refresh the copy docs/tools/approvals.md shows with
 * `APPROVAL_SCREENSHOT=docs/slack-approval-request.png npx vitest run test/e2e/slack-request-render.test.ts`.
 */
const SCREENSHOT = process.env.APPROVAL_SCREENSHOT
  ? resolve(process.env.APPROVAL_SCREENSHOT)
  : join(tmpdir(), "switchyard-slack-approval-request.png");

const start = useSlackHarness();

const deploy = defineTool({
  id: "deploy",
  description: "Deploys a service to an environment.",
  parameters: z.object({ service: z.string(), env: z.string(), version: z.string() }),
  approval: "ask",
  execute: async ({ service, env }) => `deployed ${service} to ${env}`,
});

describe.runIf(FOUND || REQUIRED)(
  `a Slack approval request drawn in a browser (${CHROMIUM})`,
  () => {
    it("shows the request's text and its four buttons as Block Kit draws them", async () => {
      const h = await start({
        users: { U0HUMAN: { name: "hugo", real_name: "Hugo Human", display_name: "Hugo" } },
        tools: [deploy],
      });
      h.pipe.fake.script({
        toolCalls: [
          {
            id: "call_deploy",
            name: "deploy",
            arguments: { service: "checkout", env: "production", version: "v2.14.0" },
          },
        ],
      });
      const mention = appMentionEvent({
        text: `<@${FAKE_SLACK.botUserId}> ship checkout v2.14.0 to production`,
      });
      await sendEvent(h.events[0] as string, SLACK_SECRET, mention, { eventId: "EvRender" });
      const wait = await parkedWait(h.pipe.app.redis, h.pipe.app.store, {
        platform: "slack",
        workspace: FAKE_SLACK.teamId,
        channel: "C0GENERAL",
        conversation: `C0GENERAL:${mention.ts}`,
      });
      // The blocks exactly as the channel posted them to the Web API.
      const posted = h.slack.messages.find((m) => m.ts === wait.requestRef);
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ["--no-sandbox", "--disable-gpu"],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 800, height: 400 } });
        await page.setContent(blockKitPage(FAKE_SLACK.botName, posted?.blocks ?? []));
        const message = page.locator(".message");
        expect(await page.locator("button").allInnerTexts()).toEqual([
          "Approve",
          "Approve for this conversation",
          "Deny",
          "Show arguments",
        ]);
        const text = (await message.textContent()) ?? "";
        expect(text).toContain("Approval needed: the bot wants to run deploy.");
        expect(text).toContain('{"service":"checkout","env":"production","version":"v2.14.0"}');
        expect(text).toMatch(
          /Hugo \(who asked\), admins or the bot's owners can decide, until \d\d:\d\d UTC\./,
        );
        await message.screenshot({ path: SCREENSHOT });
        expect(existsSync(SCREENSHOT)).toBe(true);
      } finally {
        await browser.close();
      }
    }, 60_000);
  },
);
