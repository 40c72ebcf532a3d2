import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToolsCommand } from "../../src/cli/tools.ts";
import { startOpsServer } from "../../src/observability/http.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { mountConsole } from "../../src/ops/console/mount.ts";
import { basicAuth, CONSOLE_TOKEN, type ConsoleBot, startConsoleBot } from "../support/console.ts";

let bot: ConsoleBot;

/** What `switchyard tools --json` prints, run as the CLI runs it. */
async function toolsJson(): Promise<{ contractHash: string }> {
  let out = "";
  const code = await runToolsCommand(["--json"], {
    env: {},
    readFile: () => "",
    stdout: (text) => {
      out += text;
    },
    stderr: () => {},
  });
  expect(code).toBe(0);
  return JSON.parse(out);
}

beforeAll(async () => {
  bot = await startConsoleBot();
  bot.pipe.fake.script({ content: "Hello from the console test." });
  await bot.pipe.app.queue.enqueue(bot.pipe.message("hi"));
  await bot.pipe.posts(1);
}, 60_000);
afterAll(() => bot?.close());

const CONVERSATION = "console:local:terminal:main";

describe("the operator console", () => {
  it("refuses every request without the token, before reading anything", async () => {
    for (const path of [
      "",
      "/",
      "/mcp",
      `/conversations/${CONVERSATION}`,
      "/queues",
      "/queues/api/queues",
    ]) {
      const bare = await fetch(`${bot.url}${path}`);
      expect(bare.status, path).toBe(401);
      expect(bare.headers.get("www-authenticate")).toMatch(/^Basic realm="Switchyard console"/);
      const wrong = await fetch(`${bot.url}${path}`, {
        headers: { authorization: basicAuth("nope") },
      });
      expect(wrong.status, path).toBe(401);
      expect(await wrong.text()).not.toContain("terminal");
    }
    const bearer = await fetch(bot.url, { headers: { authorization: `Bearer ${CONSOLE_TOKEN}x` } });
    expect(bearer.status).toBe(401);
  });

  it("lists the conversation that just had a turn, with its steps and tokens", async () => {
    const res = await fetch(bot.url, { headers: { authorization: basicAuth() } });
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain(`href="/console/conversations/${encodeURIComponent(CONVERSATION)}"`);
    expect(body).toMatch(/<td>console<\/td><td>local<\/td>\s*<td>terminal<\/td>/);
    expect(body).toMatch(/<td>answer<\/td><td>1<\/td>/);
  });

  it("shows a conversation's contract with the hash `switchyard tools` prints", async () => {
    const res = await fetch(`${bot.url}/conversations/${encodeURIComponent(CONVERSATION)}`, {
      headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
    });
    expect(res.status).toBe(200);
    const body = await res.text();
    const { contractHash } = await toolsJson();
    expect(body).toContain(`<span class="hash" id="contract-hash">${contractHash}</span>`);
    expect(body).toContain("queue mode <strong>collect</strong>");
    expect(body).toContain("<code>current_time</code>");
    expect(body).toContain("None: this conversation follows the config.");
  });

  it("shows which tools ask first and who decided it, under the same contract hash", async () => {
    const address = {
      platform: "console",
      workspace: "local",
      channel: "terminal",
      conversation: "main",
    };
    const { intent } = bot.pipe.app.store;
    await intent.apply(address, { kind: "set", key: "fetch_url", value: "ask" });
    try {
      const res = await fetch(`${bot.url}/conversations/${encodeURIComponent(CONVERSATION)}`, {
        headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
      });
      const body = await res.text();
      const { contractHash } = await toolsJson();
      // ask changes nothing the model sees: the hash is still the one of a conversation that never asked.
      expect(body).toContain(`<span class="hash" id="contract-hash">${contractHash}</span>`);
      expect(body).toContain("<h2>Asks first (3)</h2>");
      expect(body).toContain(
        "<tr><td><code>fetch_url</code></td><td>conversation</td><td>asks first, decided by conversation scope (fetch_url)</td></tr>",
      );
      for (const tool of ["schedule_task", "send_message"]) {
        expect(body).toContain(
          `<tr><td><code>${tool}</code></td><td>tool</td><td>asks first, decided by the tool&#39;s own default</td></tr>`,
        );
      }
      expect(body).toContain(
        "<tr><td>conversation</td><td><code>fetch_url</code></td><td>ask</td></tr>",
      );
    } finally {
      await intent.apply(address, { kind: "reset", key: "fetch_url" });
    }
  });

  it("shows MCP servers and serves Bull Board over every shard and the reminders", async () => {
    const headers = { authorization: basicAuth() };
    expect(await (await fetch(`${bot.url}/mcp`, { headers })).text()).toContain(
      "No MCP server is configured.",
    );
    const board = await fetch(`${bot.url}/queues`, { headers });
    expect(board.status).toBe(200);
    expect(await board.text()).toContain('<base href="/console/queues/" />');
    const logo = await fetch(`${bot.url}/queues/static/images/logo.svg`, { headers });
    expect(logo.status).toBe(200);
    expect(logo.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    const api = await fetch(`${bot.url}/queues/api/queues`, { headers });
    expect(api.status).toBe(200);
    const { queues } = (await api.json()) as {
      queues: { displayName: string; allowRetries: boolean }[];
    };
    expect(queues.map((q) => q.displayName).sort()).toEqual([
      "conversations, shard 0 of 1",
      "reminders",
    ]);
    for (const queue of queues) expect(queue.allowRetries).toBe(true);
    const shard = encodeURIComponent("shard 0 of 1: switchyard-turns");
    for (const change of ["clean/failed", "pause", "empty", "obliterate"]) {
      const res = await fetch(`${bot.url}/queues/api/queues/${shard}/${change}`, {
        method: "PUT",
        headers,
      });
      expect(res.status, change).toBe(403);
    }
    const retry = await fetch(`${bot.url}/queues/api/queues/${shard}/retry/failed`, {
      method: "PUT",
      headers,
    });
    expect(retry.status).toBe(200);
  });

  it("stays off without a token of 16 characters or more, and says how to set one", async () => {
    const ops = await startOpsServer({
      port: 0,
      host: "127.0.0.1",
      metrics: new Metrics(),
      ready: () => true,
    });
    try {
      const warnings: string[] = [];
      const logger = { warn: (_: object, m: string) => warnings.push(m), info: () => {} };
      const rest = {
        redis: bot.pipe.app.redis,
        prefix: bot.pipe.prefix,
        queue: bot.pipe.app.queue,
      };
      const options = {
        ...rest,
        sources: {} as never,
        host: {} as never,
        queueMode: () => "collect",
        logger,
      };
      expect(await mountConsole(ops, { ...options, env: {} })).toBe(false);
      expect(
        await mountConsole(ops, { ...options, env: { SWITCHYARD_CONSOLE_TOKEN: "short" } }),
      ).toBe(false);
      expect(warnings[0]).toMatch(/SWITCHYARD_CONSOLE_TOKEN is not set/);
      expect(warnings[1]).toMatch(/shorter than 16 characters/);
      expect((await fetch(`http://127.0.0.1:${ops.port}/console`)).status).toBe(404);
    } finally {
      await ops.close();
    }
  });
});
