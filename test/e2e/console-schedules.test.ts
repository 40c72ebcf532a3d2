import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextRuns } from "../../src/core/schedules/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { ScheduleStore } from "../../src/store/schedule-store.ts";
import { basicAuth, type ConsoleBot, startConsoleBot } from "../support/console.ts";

/** Two schedules into the console's conversation: one that ran once, one that waits for Monday. */
const CONFIG = parseConfig(
  [
    "schedules:",
    "  - id: ticker",
    "    target: { platform: console, workspace: local, channel: terminal }",
    "    prompt: Say tick.",
    '    cron: "* * * * * *"',
    "    owner: alice",
    "    max_runs: 1",
    "  - id: weekly",
    "    target: { platform: console, workspace: local, channel: terminal, thread: ops }",
    "    prompt: Summarise the week.",
    '    cron: "0 9 * * 1"',
    "    tz: Europe/Berlin",
    "    owner: bob",
    "  - id: gone",
    "    target: { platform: console, workspace: local, channel: archived }",
    "    prompt: Say hello.",
    "    every: 6h",
    "    owner: carol",
  ].join("\n"),
  "switchyard.yaml",
);

const headers = { authorization: basicAuth() };
const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

let bot: ConsoleBot;
let store: ScheduleStore;

async function schedulesPage(): Promise<string> {
  const res = await fetch(`${bot.url}/schedules`, { headers });
  expect(res.status).toBe(200);
  return res.text();
}

/** The row of one schedule on the page. */
function row(body: string, id: string): string {
  const found = new RegExp(`<tr data-schedule="${id}">([\\s\\S]*?)</tr>`).exec(body)?.[1];
  expect(found, `the row of ${id}`).toBeDefined();
  return found as string;
}

/** The token of a row's pause or resume form. */
function formToken(body: string, id: string): string {
  const token = /name="token" value="([^"]+)"/.exec(row(body, id))?.[1];
  expect(token).toBeDefined();
  return token as string;
}

function post(id: string, action: string, form: Record<string, string>, extra = {}) {
  return fetch(`${bot.url}/schedules/${id}/${action}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", ...extra },
    body: new URLSearchParams(form).toString(),
    redirect: "manual",
  });
}

beforeAll(async () => {
  bot = await startConsoleBot({}, CONFIG);
  store = new ScheduleStore(bot.pipe.app.redis, bot.pipe.app.store.keys);
  // The ticker's one run is an ordinary turn, answered in the console's conversation.
  const [answer] = await bot.pipe.posts(1, 20_000);
  expect(answer?.text).toContain("Say tick.");
  // As the worker pauses a schedule whose target the platform says is gone.
  await store.pause(
    "gone",
    "the bot can no longer post in its target (Slack: is_archived).",
    Date.now(),
  );
}, 60_000);
afterAll(() => bot?.close());

describe("the console's schedules page", () => {
  it("lists each schedule's target, owner, timing, next run, last run and what it came to", async () => {
    const body = await schedulesPage();
    expect(body).toContain('<a href="/console/schedules">Schedules</a>');
    const weekly = row(body, "weekly");
    expect(weekly).toContain("console · local · terminal · thread ops");
    expect(weekly).toContain("<td>bob</td>");
    expect(weekly).toContain("cron &quot;0 9 * * 1&quot; (Europe/Berlin)");
    const next = nextRuns(
      { kind: "cron", pattern: "0 9 * * 1", tz: "Europe/Berlin" },
      Date.now(),
      1,
    );
    expect(weekly).toContain(`<td class="next-run">${when(next[0] as number)}</td>`);
    expect(weekly).toContain('<td class="last-run">-</td>');
    expect(weekly).toContain('<span class="ok">running</span>');

    const ticker = row(body, "ticker");
    const state = await store.get("ticker");
    expect(state?.lastRun).toBeDefined();
    expect(ticker).toContain(when(state?.lastRun?.at as number));
    expect(ticker).toContain('<span class="outcome">queued</span>');
    expect(ticker).toContain("ended (max_runs)");
    expect(ticker).toContain('<td class="next-run">-</td>');
  });

  it("shows a paused schedule with its reason and no next run", async () => {
    const gone = row(await schedulesPage(), "gone");
    expect(gone).toContain('<span class="bad">paused</span>');
    expect(gone).toContain(
      '<span class="reason">the bot can no longer post in its target (Slack: is_archived).</span>',
    );
    expect(gone).toContain('<td class="next-run">-</td>');
    expect(gone).toContain('class="schedule-resume"');
  });

  it("pauses and resumes a schedule from its row's button", async () => {
    const token = formToken(await schedulesPage(), "weekly");
    const paused = await post("weekly", "pause", { token }, { origin: new URL(bot.url).origin });
    expect(paused.status).toBe(200);
    expect(await paused.text()).toContain("Paused schedule &quot;weekly&quot;");
    expect((await store.get("weekly"))?.paused?.reason).toBe("paused from the console.");
    let weekly = row(await schedulesPage(), "weekly");
    expect(weekly).toContain("paused from the console.");
    expect(weekly).toContain('<td class="next-run">-</td>');

    const resume = formToken(await schedulesPage(), "weekly");
    const resumed = await post("weekly", "resume", { token: resume });
    expect(await resumed.text()).toContain("Resumed schedule &quot;weekly&quot;");
    expect((await store.get("weekly"))?.paused).toBeUndefined();
    weekly = row(await schedulesPage(), "weekly");
    expect(weekly).toContain('<span class="ok">running</span>');
  });

  it("refuses a pause without the page's token, from another site, or without the console's", async () => {
    const token = formToken(await schedulesPage(), "weekly");
    expect((await post("weekly", "pause", {})).status).toBe(403);
    // The pause token does not resume, and one schedule's token does not pause another.
    expect((await post("weekly", "resume", { token })).status).toBe(403);
    expect((await post("gone", "resume", { token })).status).toBe(403);
    const cross = await post("weekly", "pause", { token }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect(await cross.text()).toMatch(/^Refused: this request came from another site/);
    expect(
      (await post("weekly", "pause", { token }, { "sec-fetch-site": "cross-site" })).status,
    ).toBe(403);
    const anonymous = await fetch(`${bot.url}/schedules/weekly/pause`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    expect((await fetch(`${bot.url}/schedules`)).status).toBe(401);
    expect((await store.get("weekly"))?.paused).toBeUndefined();
  });
});
