import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/platforms/config.ts";
import { basicAuth, type ConsoleBot, startConsoleBot } from "../support/console.ts";

const CONFIG = parseConfig(
  [
    "budgets:",
    "  tokens:",
    "    user: 5000/day",
    "    workspace: 2000/day",
    "limits:",
    "  user: 20/10m",
    "  workspace: 3/h",
  ].join("\n"),
  "switchyard.yaml",
);

const KEY = "console:local:terminal:main";
const headers = { authorization: basicAuth() };

let bot: ConsoleBot;

/** Sends a message as alice and waits for the answer (the `n`th post). */
async function turn(text: string, n: number): Promise<void> {
  await bot.pipe.app.queue.enqueue(bot.pipe.message(text));
  await bot.pipe.posts(n);
}

/** The token the conversation page's reset form carries. */
async function formToken(key = KEY): Promise<string> {
  const body = await (
    await fetch(`${bot.url}/conversations/${encodeURIComponent(key)}`, { headers })
  ).text();
  const token = /name="token" value="([^"]+)"/.exec(body)?.[1];
  expect(token).toBeDefined();
  return token as string;
}

function postReset(form: Record<string, string>, extra: Record<string, string> = {}) {
  return fetch(`${bot.url}/conversations/${encodeURIComponent(KEY)}/reset`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", ...extra },
    body: new URLSearchParams(form).toString(),
    redirect: "manual",
  });
}

/** What the model was sent last, without the system prompt. */
function lastRequestTurns(): { role: string; content: unknown }[] {
  const messages = bot.pipe.fake.requests.at(-1)?.body.messages ?? [];
  return messages.filter((m: { role: string }) => m.role !== "system");
}

beforeAll(async () => {
  bot = await startConsoleBot({}, CONFIG);
  bot.pipe.fake.script({
    content: "First answer.",
    usage: { prompt_tokens: 1200, completion_tokens: 30, cached_tokens: 200 },
  });
  await turn("hello", 1);
}, 60_000);
afterAll(() => bot?.close());

describe("the console's usage and limits page", () => {
  it("shows each workspace's tokens today against its budget, and each person's", async () => {
    const res = await fetch(`${bot.url}/usage`, { headers });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain(`href="/console/usage/console/local"`);
    // 1,230 of 2,000 workspace tokens; alice has 3,770 of her 5,000 left.
    expect(body).toMatch(
      /<td>console<\/td><td><a [^>]+>local<\/a><\/td>\s*<td>1,230<\/td><td>1,200<\/td><td>200<\/td><td>30<\/td><td>1<\/td><td>2,000<\/td><td class="ok">770<\/td>\s*<td>00:00 UTC \(in /,
    );
    expect(body).toMatch(
      /<td><code>console:alice<\/code><\/td><td>1,230<\/td>.*?<td>5,000<\/td><td class="ok">3,770<\/td>/s,
    );
  });

  it("shows one workspace's budget, its limits and what is left of its message window", async () => {
    const res = await fetch(`${bot.url}/usage/console/local`, { headers });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toMatch(/<tr id="workspace-budget"><td>2,000<\/td><td class="ok">770<\/td>/);
    expect(body).toContain("<td><code>limits.user</code></td><td>20/10m</td>");
    expect(body).toContain("20 messages per 10 minutes for each person");
    expect(body).toContain("<td><code>limits.workspace</code></td><td>3/h</td>");
    // The pipeline queues without the ingress gate: nothing was counted against the window.
    expect(body).toContain('0 used, <span class="ok">3 left</span>');
  });

  it("refuses the pages without the token", async () => {
    for (const path of ["/usage", "/usage/console/local"]) {
      expect((await fetch(`${bot.url}${path}`)).status, path).toBe(401);
    }
    const reset = await fetch(`${bot.url}/conversations/${encodeURIComponent(KEY)}/reset`, {
      method: "POST",
    });
    expect(reset.status).toBe(401);
  });
});

describe("resetting a conversation from the console", () => {
  it("refuses a reset without the page's form token, from another site, or by GET, and forgets nothing", async () => {
    const token = await formToken();
    expect((await postReset({})).status).toBe(403);
    expect((await postReset({ token: "forged" })).status).toBe(403);
    expect(
      (await postReset({ token: await formToken("console:local:terminal:other") })).status,
    ).toBe(403);
    expect((await postReset({ token }, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    const get = await fetch(
      `${bot.url}/conversations/${encodeURIComponent(KEY)}/reset?token=${encodeURIComponent(token)}`,
      { headers },
    );
    expect(get.status).toBe(404);
    bot.pipe.fake.script({ content: "Second answer." });
    await turn("still there?", 2);
    // The first exchange is still in what the model is sent.
    expect(JSON.stringify(lastRequestTurns())).toContain("hello");
  });

  it("refuses a POST from another site even with a valid form token, and says why", async () => {
    const token = await formToken();
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1.evil.example"]) {
      const res = await postReset({ token }, { origin });
      expect(res.status, origin).toBe(403);
      expect(await res.text()).toMatch(
        /^Refused: this request came from another site \(Origin: .+\), not from the console at 127\.0\.0\.1:\d+\./,
      );
    }
    // Bull Board's retry, which carries no form token, is held to the same rule.
    const shard = encodeURIComponent("shard 0 of 1: switchyard-turns");
    const retry = await fetch(`${bot.url}/queues/api/queues/${shard}/retry/failed`, {
      method: "PUT",
      headers: { ...headers, origin: "https://evil.example" },
    });
    expect(retry.status).toBe(403);
    bot.pipe.fake.script({ content: "Still remembered." });
    await turn("and now?", 3);
    expect(JSON.stringify(lastRequestTurns())).toContain("hello");
  });

  it("does what /new does: answers as /new does, and the next request carries no earlier message", async () => {
    // As a browser on the console's own page sends it: with the console's origin.
    const res = await postReset(
      { token: await formToken(), all: "no" },
      { origin: new URL(bot.url).origin },
    );
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain(
      "Starting a fresh conversation: I&#39;ve forgotten what we said here and the tools I loaded.",
    );
    bot.pipe.fake.script({ content: "Fresh answer." });
    await turn("after the reset", 4);
    const sent = lastRequestTurns();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ role: "user", content: "after the reset" });
  });

  it("does what /new --all does from the other button, and answers as it does", async () => {
    const res = await postReset({ token: await formToken(), all: "yes" });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(
      "the tools I loaded, and this conversation&#39;s tool, model and queue choices.",
    );
  });
});
