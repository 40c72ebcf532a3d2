import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { type FakeCollector, startFakeCollector } from "../fakes/otlp-collector.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
import { runConsoleStart } from "../support/start-command.ts";

let fake: FakeOpenAI | undefined;
let collector: FakeCollector | undefined;
const prefixes: string[] = [];
afterEach(async () => {
  await fake?.close();
  await collector?.close();
  fake = collector = undefined;
  const redis = connectRedis();
  for (const prefix of prefixes.splice(0)) await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

const TYPED = "remind me that my PIN is 4711";
const API_KEY = "sk-console-trace-secret-31337";

describe("switchyard start with the console channel, traced", () => {
  it("opens an ingress span for each typed line, with the command and the enqueue inside it", async () => {
    fake = await startFakeOpenAI();
    fake.script({ content: "Noted." });
    collector = await startFakeCollector();
    const prefix = uniquePrefix("console-trace");
    prefixes.push(prefix);
    const { code } = await runConsoleStart(`${TYPED}\n/tools\n`, {
      SWITCHYARD_PREFIX: prefix,
      OPENAI_BASE_URL: fake.url,
      OPENAI_API_KEY: API_KEY,
      SWITCHYARD_MODEL: "fake-model",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    });
    expect(code).toBe(0);
    // The process flushes its spans as it exits.
    const spans = collector.spans;
    const ingress = spans.filter((span) => span.name === "switchyard.ingress");
    expect(ingress.map((span) => span.attributes["switchyard.ingress.outcome"])).toEqual([
      "queued",
      "answered",
    ]);
    const [queued, answered] = ingress;
    const enqueue = spans.find((span) => span.name === "switchyard.enqueue");
    expect(enqueue?.parentSpanId).toBe(queued?.spanId);
    const turn = spans.find((span) => span.name === "switchyard.turn");
    expect(turn?.traceId).toBe(queued?.traceId);
    // The command read the conversation's state inside its span, and queued nothing.
    const underAnswered = spans.filter((span) => span.parentSpanId === answered?.spanId);
    expect(underAnswered.map((span) => span.name)).not.toContain("switchyard.enqueue");
    expect(underAnswered.some((span) => span.attributes["db.system.name"] === "redis")).toBe(true);

    // What a span says: its name and attributes (its links' too). Not its random hex ids,
    // where "4711" turns up by chance (thousands of hex digits per run: about one run in twenty).
    const said = JSON.stringify(
      spans.map(({ name, service, attributes, links }) => ({
        name,
        service,
        attributes,
        links: links.map((link) => link.attributes),
      })),
    );
    for (const secret of [TYPED, "4711", "Noted.", API_KEY]) expect(said).not.toContain(secret);
  }, 60_000);
});
