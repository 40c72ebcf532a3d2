import { afterEach, describe, expect, it } from "vitest";
import {
  type OpsServer,
  RouteConflictError,
  startOpsServer,
} from "../../src/observability/http.ts";
import {
  createLogger,
  LogLevelError,
  loggerPort,
  redactSecrets,
  registerSecret,
} from "../../src/observability/logger.ts";
import { Metrics } from "../../src/observability/metrics.ts";

const BOT_TOKEN = "xoxb-2718281828-SECRETSECRET";
const API_KEY = "sk-test-0123456789abcdef";

function capture(env: NodeJS.ProcessEnv = {}, level?: string) {
  const lines: string[] = [];
  const logger = createLogger({
    env: { SLACK_BOT_TOKEN: BOT_TOKEN, OPENAI_API_KEY: API_KEY, ...env },
    destination: { write: (line: string) => void lines.push(line) },
    ...(level ? { level } : {}),
  });
  const output = () => lines.join("");
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, output, records };
}

describe("createLogger", () => {
  it("censors credential fields by name, at the top and nested", () => {
    const { logger, output } = capture();
    logger.info(
      {
        token: "plain-token-value-1",
        slack: { botToken: "plain-token-value-2", auth: { signingSecret: "plain-token-value-3" } },
        headers: { authorization: "Bearer plain-token-value-4" },
        req: { headers: { authorization: "Bearer plain-token-value-5" } },
        provider: { apiKey: "plain-token-value-6", password: "plain-token-value-7" },
        conversation: "slack:T1:C1",
      },
      "request",
    );
    expect(output()).not.toMatch(/plain-token-value/);
    expect(output()).toContain("[redacted]");
    expect(output()).toContain("slack:T1:C1");
  });

  it("scrubs env secret values from messages", () => {
    const { logger, output } = capture();
    logger.info(`calling Slack with ${BOT_TOKEN}`);
    logger.warn({ note: `key is ${API_KEY}` }, "provider configured");
    expect(output()).not.toContain(BOT_TOKEN);
    expect(output()).not.toContain(API_KEY);
    expect(output()).toContain("calling Slack with [redacted]");
  });

  it("scrubs secret values from error messages and stacks", () => {
    const { logger, output, records } = capture();
    logger.error(new Error(`invalid_auth for token ${BOT_TOKEN}`));
    logger.error({ err: new Error(`401 for ${API_KEY}`) }, "provider failed");
    expect(output()).not.toContain(BOT_TOKEN);
    expect(output()).not.toContain(API_KEY);
    const [first] = records() as [{ msg: string; err: { stack: string } }];
    expect(first.msg).toBe("invalid_auth for token [redacted]");
    expect(first.err.stack).toContain("[redacted]");
  });

  it("scrubs values registered after the logger was created, child bindings included", () => {
    const { logger, output } = capture();
    const late = "late-secret-fetched-at-runtime";
    registerSecret(late);
    logger.child({ upstream: `https://u:${late}@example.com` }).info(`using ${late}`);
    expect(output()).not.toContain(late);
  });

  it("keeps every line valid JSON when a secret is a number", () => {
    const pin = "1234567";
    const { logger, records } = capture({ DOOR_PASSWORD: pin });
    logger.info({ count: 91234567890, label: `pin ${pin}` }, `pin is ${pin}`);
    const [record] = records();
    expect(record?.count).toBe(91234567890);
    expect(record?.label).toBe("pin [redacted]");
  });

  it("takes the level from LOG_LEVEL and rejects unknown levels with the choices", () => {
    const { logger, records } = capture({ LOG_LEVEL: "warn" });
    logger.info("hidden");
    logger.warn("shown");
    expect(records().map((r) => r.msg)).toEqual(["shown"]);
    expect(() => createLogger({ env: { LOG_LEVEL: "verbose" } })).toThrow(LogLevelError);
    expect(() => createLogger({ env: { LOG_LEVEL: "verbose" } })).toThrow(/debug/);
  });

  it("adapts to the core's LoggerPort", () => {
    const { logger, records } = capture();
    loggerPort(logger).warn("unknown tool id", { subject: "web_serch" });
    expect(records()[0]).toMatchObject({ level: 40, msg: "unknown tool id", subject: "web_serch" });
  });
});

describe("redactSecrets", () => {
  it("replaces every occurrence, the longest secret first", () => {
    expect(redactSecrets("a abc abcdef abc", ["abc", "abcdef"])).toBe(
      "a [redacted] [redacted] [redacted]",
    );
    expect(redactSecrets("nothing (.*) here", ["(.*)", ""])).toBe("nothing [redacted] here");
  });
});

const METRIC_NAMES = [
  "switchyard_queue_wait_seconds",
  "switchyard_turn_duration_seconds",
  "switchyard_turn_steps",
  "switchyard_tool_calls_total",
  "switchyard_prompt_tokens_total",
  "switchyard_cached_tokens_total",
  "switchyard_completion_tokens_total",
  "switchyard_contract_hash_changes_total",
  "switchyard_turns_total",
  "switchyard_framework_overhead_seconds",
];

describe("Metrics", () => {
  it("exposes every metric after observations, with process metrics", async () => {
    const metrics = new Metrics();
    metrics.observeQueueWait(0.02);
    metrics.observeTurn({
      seconds: 2,
      outcome: "answer",
      steps: 3,
      modelSeconds: 1.5,
      toolSeconds: 0.25,
    });
    metrics.countToolCall("web_search", "ok");
    metrics.countTokens({ prompt: 1200, cached: 1000, completion: 80 });
    metrics.countContractChange();
    const text = await metrics.exposition();
    for (const name of METRIC_NAMES) expect(text).toContain(`# TYPE ${name} `);
    expect(text).toContain('switchyard_tool_calls_total{tool="web_search",outcome="ok"} 1');
    expect(text).toContain('switchyard_turns_total{outcome="answer"} 1');
    expect(text).toContain("switchyard_cached_tokens_total 1000");
    expect(text).toContain("switchyard_framework_overhead_seconds_sum 0.25");
    expect(text).toContain("process_cpu_user_seconds_total");
  });

  it("keeps separate instances apart and ignores nonsense counts", async () => {
    const a = new Metrics();
    const b = new Metrics();
    a.countContractChange();
    b.countTokens({ prompt: -5, cached: Number.NaN, completion: 3 });
    expect(await a.exposition()).toContain("switchyard_contract_hash_changes_total 1");
    expect(await b.exposition()).toContain("switchyard_contract_hash_changes_total 0");
    expect(await b.exposition()).toContain("switchyard_prompt_tokens_total 0");
    expect(await b.exposition()).toContain("switchyard_completion_tokens_total 3");
  });
});

describe("startOpsServer", () => {
  let server: OpsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(ready: () => boolean | Promise<boolean>) {
    const metrics = new Metrics();
    metrics.countContractChange();
    server = await startOpsServer({ port: 0, host: "127.0.0.1", metrics, ready });
    const base = `http://127.0.0.1:${server.port}`;
    return { server, get: (path: string, init?: RequestInit) => fetch(`${base}${path}`, init) };
  }

  it("serves metrics, health and readiness", async () => {
    let ready = false;
    const { get } = await start(() => ready);
    const metrics = await get("/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await metrics.text()).toContain("switchyard_contract_hash_changes_total 1");
    const health = await get("/healthz");
    expect([health.status, await health.text()]).toEqual([200, "ok"]);
    expect((await get("/readyz")).status).toBe(503);
    ready = true;
    expect((await get("/readyz")).status).toBe(200);
    expect((await get("/nope")).status).toBe(404);
    expect((await get("/healthz?probe=1")).status).toBe(200);
  });

  it("is not ready when the readiness check throws", async () => {
    const { get } = await start(async () => {
      throw new Error("redis down");
    });
    expect((await get("/readyz")).status).toBe(503);
  });

  it("mounts extra routes and answers 405 for a known path with another method", async () => {
    const { server, get } = await start(() => true);
    server.route("POST", "/slack/events", (_req, res) => {
      res.writeHead(200).end("event");
    });
    const posted = await get("/slack/events", { method: "POST", body: "{}" });
    expect([posted.status, await posted.text()]).toEqual([200, "event"]);
    const wrong = await get("/slack/events");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect(() => server.route("get", "/metrics", () => {})).toThrow(RouteConflictError);
  });

  it("answers 500 when a mounted handler throws", async () => {
    const { server, get } = await start(() => true);
    server.route("GET", "/boom", () => {
      throw new Error("boom");
    });
    expect((await get("/boom")).status).toBe(500);
    expect((await get("/healthz")).status).toBe(200);
  });
});

describe("Metrics.watchWork", () => {
  const gauge = async (metrics: Metrics, name: string) =>
    new RegExp(`^${name} (\\S+)$`, "m").exec(await metrics.exposition())?.[1];

  it("keeps the last waiting count through failed looks and takes the next good one", async () => {
    const metrics = new Metrics();
    const answers: (number | Error)[] = [3, new Error("Connection is closed."), 5];
    let looks = 0;
    const stop = metrics.watchWork(
      {
        waiting: async () => {
          const answer = answers[Math.min(looks++, answers.length - 1)];
          if (answer instanceof Error) throw answer;
          return answer as number;
        },
        inProgress: () => 2,
      },
      10,
    );
    try {
      await until(async () => (await gauge(metrics, "switchyard_queue_waiting")) === "3");
      await until(() => looks >= 2);
      expect(await gauge(metrics, "switchyard_queue_waiting")).toMatch(/^[35]$/);
      await until(async () => (await gauge(metrics, "switchyard_queue_waiting")) === "5");
      expect(await gauge(metrics, "switchyard_turns_in_progress")).toBe("2");
    } finally {
      stop();
    }
    const after = looks;
    await new Promise((r) => setTimeout(r, 50));
    expect(looks).toBe(after);
  });

  it("survives a source that throws instead of rejecting", async () => {
    const metrics = new Metrics();
    const stop = metrics.watchWork(
      {
        waiting: () => {
          throw new Error("not connected");
        },
        inProgress: () => 0,
      },
      10,
    );
    await new Promise((r) => setTimeout(r, 40));
    stop();
    expect(await gauge(metrics, "switchyard_queue_waiting")).toBe("0");
  });
});

async function until(condition: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
