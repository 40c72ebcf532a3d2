import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToolsCommand } from "../../src/cli/tools.ts";
import { CONSOLE_TOKEN, type ConsoleBot, startConsoleBot } from "../support/console.ts";

/** Debian's chromium, driven without any browser download; CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FOUND = existsSync(CHROMIUM);
const REQUIRED = process.env.CONSOLE_BROWSER_TEST === "1";
/**
 * Where the conversation page's screenshot goes, for review: a temporary file
 * unless CONSOLE_SCREENSHOT names one, so a test run leaves the checkout
 * clean. Refresh the copy docs/operate/console.md shows with
 * `CONSOLE_SCREENSHOT=docs/console-conversation.png npx vitest run test/e2e/console-browser.test.ts`.
 */
const SCREENSHOT = process.env.CONSOLE_SCREENSHOT
  ? resolve(process.env.CONSOLE_SCREENSHOT)
  : join(tmpdir(), "switchyard-console-conversation.png");
const CONVERSATION = encodeURIComponent("console:local:terminal:main");

describe.runIf(FOUND || REQUIRED)(`the console in a real browser (${CHROMIUM})`, () => {
  let bot: ConsoleBot;
  let browser: Browser;

  beforeAll(async () => {
    if (!FOUND) {
      throw new Error(
        `CONSOLE_BROWSER_TEST=1 but there is no browser at ${CHROMIUM}. Install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`,
      );
    }
    bot = await startConsoleBot();
    bot.pipe.fake.script(
      { toolCalls: [{ id: "call_1", name: "current_time", arguments: { timeZone: "UTC" } }] },
      { content: "It is noon." },
    );
    await bot.pipe.app.queue.enqueue(bot.pipe.message("what time is it?"));
    await bot.pipe.posts(1);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu"],
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await bot?.close();
  });

  const signedIn = () =>
    browser.newContext({
      httpCredentials: { username: "operator", password: CONSOLE_TOKEN },
      viewport: { width: 1100, height: 900 },
    });

  it("refuses a browser without the token", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // Headless, nobody can type the password at the challenge: the navigation fails on the 401.
    await expect(page.goto(bot.url)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
    const response = await context.request.get(`${bot.url}/conversations/${CONVERSATION}`);
    expect(response.status()).toBe(401);
    expect(await response.text()).toBe("The console needs the token in SWITCHYARD_CONSOLE_TOKEN.");
    await context.close();
  });

  it("shows the conversation with the contract hash `switchyard tools` prints", async () => {
    let out = "";
    await runToolsCommand(["--json"], {
      env: {},
      readFile: () => "",
      stdout: (text) => {
        out += text;
      },
      stderr: () => {},
    });
    const { contractHash } = JSON.parse(out) as { contractHash: string };
    const context = await signedIn();
    const page = await context.newPage();
    expect((await page.goto(bot.url))?.status()).toBe(200);
    await page.click(`a[href="/console/conversations/${CONVERSATION}"]`);
    await page.waitForURL(`**/console/conversations/${CONVERSATION}`);
    expect(await page.textContent("#contract-hash")).toBe(contractHash);
    expect(await page.textContent("main")).toContain("Last turns");
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(readFileSync(SCREENSHOT).subarray(1, 4).toString()).toBe("PNG");
    await context.close();
  });

  it("resets the conversation from its page's button, as /new does", async () => {
    const context = await signedIn();
    const page = await context.newPage();
    expect((await page.goto(`${bot.url}/conversations/${CONVERSATION}`))?.status()).toBe(200);
    await page.click('#reset-conversation button[value="no"]');
    await page.waitForURL(`**/console/conversations/${CONVERSATION}/reset`);
    expect(await page.textContent("#command-reply")).toContain("Starting a fresh conversation");
    await context.close();
  });

  it("loads Bull Board with every conversation shard and the reminders", async () => {
    const context = await signedIn();
    const page = await context.newPage();
    expect((await page.goto(`${bot.url}/queues`))?.status()).toBe(200);
    await page.getByText("conversations, shard 0 of 1").first().waitFor({ timeout: 20_000 });
    await page.getByText("reminders").first().waitFor({ timeout: 20_000 });
    const mcp = await page.goto(`${bot.url}/mcp`);
    expect(mcp?.status()).toBe(200);
    expect(await page.textContent("main")).toContain("No MCP server is configured.");
    await context.close();
  });
});
