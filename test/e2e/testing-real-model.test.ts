import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { runTestCommand } from "../../src/testing/scenario-command.ts";
import { scriptedModel } from "../../src/testing/scripted-model.ts";
import { REDIS_URL } from "../support/redis.ts";

/**
 * `switchyard test --model real` and judge rubrics. The "real" model is the
 * project's fake OpenAI-compatible server on its own port, reached over HTTP
 * with a key, exactly as a hosted model would be.
 */
const EXAMPLE = fileURLToPath(new URL("../../examples/tested-bot/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "sy-real-model-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; report: string }> {
  const lines: string[] = [];
  const code = await runTestCommand([...args, "--redis", REDIS_URL], {
    print: (l) => lines.push(l),
    env,
  });
  return { code, report: lines.join("\n") };
}

function scenario(name: string, lines: string[]): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, [`name: ${name}`, `bot: ${join(EXAMPLE, "parts.js")}`, ...lines].join("\n"));
  return file;
}

/** A judge rule goes first: the judge's prompt quotes the person, so it would match theirs too. */
const judgeSays = (reply: string) => ({ when: "Rubric:", reply });

describe("switchyard test --model real", () => {
  it("runs a scenario against the configured model, judged by it, then replays it from the cache with no model at all", async () => {
    const real = await startFakeOpenAI({
      apiKey: "sk-real",
      responder: scriptedModel({
        rules: [
          judgeSays('{"score": 0.9, "reason": "It gives the count from the tool."}'),
          {
            when: "kettle",
            reply: [
              { tool: "stock_level", args: { product: "ember-kettle" } },
              (r) => `Yes: ${r.lastToolResult}`,
            ],
          },
        ],
      }),
    });
    const file = scenario("real kettle", [
      "judge_model: grader-1",
      // Scripted answers the real model replaces: this one would fail the step.
      "model: { otherwise: scripted not real }",
      "steps:",
      "  - say: Do we have the kettle?",
      "    expect:",
      "      answer_contains: 12 ember-kettle in stock",
      "      tool_called: { name: stock_level, args: { product: ember-kettle } }",
      "      judge: { rubric: States how many kettles are in stock., pass: 0.7 }",
    ]);
    const cache = join(dir, "replies.json");
    const env = {
      OPENAI_API_KEY: "sk-real",
      OPENAI_BASE_URL: real.url,
      SWITCHYARD_MODEL: "real-1",
    };
    let live: { code: number; report: string };
    try {
      live = await run(env, file, "--model", "real", "--cache", cache);
    } finally {
      await real.close();
    }
    expect(live.report, live.report).toContain("1 of 1 scenario passed.");
    expect(live.report).toContain(
      "          judge 0.9 (pass 0.7): It gives the count from the tool.",
    );
    expect(live.code).toBe(0);
    // Two steps of the bot's turn for its own model, one request for the judge's.
    expect(real.requests.map((r) => r.body.model)).toEqual(["real-1", "real-1", "grader-1"]);
    expect(Object.keys(JSON.parse(readFileSync(cache, "utf8")))).toHaveLength(3);

    // The model is gone and no key is set: the cache answers every request.
    const replay = await run({}, file, "--model", "real", "--cache", cache);
    expect(replay.report, replay.report).toBe(live.report);
    expect(replay.code).toBe(0);
  }, 90_000);

  it("fails a step whose request the cache lacks when there is no model to ask, and says so", async () => {
    const file = scenario("uncached", ["steps:", "  - say: Anything new?"]);
    const cache = join(dir, "empty.json");
    writeFileSync(cache, "{}\n");
    const { code, report } = await run(
      {},
      file,
      "--model",
      "real",
      "--cache",
      cache,
      "--timeout",
      "20000",
    );
    expect(code).toBe(1);
    expect(report).toMatch(/^FAIL {2}uncached/m);
    expect(report).toContain(`This request is not in ${cache}`);
  }, 60_000);

  it("fails a step the real model refused, with its answer in the report", async () => {
    const real = await startFakeOpenAI({ apiKey: "sk-real" });
    const file = scenario("refused", ["steps:", "  - say: hi"]);
    try {
      const env = { OPENAI_API_KEY: "sk-wrong", OPENAI_BASE_URL: real.url };
      const { code, report } = await run(env, file, "--model", "real");
      expect(code).toBe(1);
      expect(report).toContain(
        `The real model at ${real.url} could not answer: The real model answered HTTP 401`,
      );
    } finally {
      await real.close();
    }
  }, 60_000);

  it("refuses --model real with no model and no cache, and --cache without --model real", async () => {
    const file = scenario("unused", ["steps:", "  - say: hi"]);
    const none = await run({}, file, "--model", "real");
    expect(none.code).toBe(2);
    expect(none.report).toContain("--model real needs a model: set OPENAI_API_KEY");
    const cacheAlone = await run({}, file, "--cache", join(dir, "c.json"));
    expect(cacheAlone.code).toBe(2);
    expect(cacheAlone.report).toContain(
      "--cache records a real model's replies: add --model real.",
    );
  });
});

describe("judge rubrics", () => {
  it("fail a step scored below its pass mark, and one whose judge answers nonsense, with the score and reason shown", async () => {
    const file = scenario("judged", [
      "model:",
      "  rules:",
      `    - { when: "Rubric:\\nBe warm", reply: '{"score": 0.3, "reason": "Curt, no greeting."}' }`,
      `    - { when: "Rubric:\\nBe brief", reply: "I would say it is fine." }`,
      `    - { when: "Rubric:\\nSay hi", reply: "{\\"score\\": 1, \\"reason\\": \\"Says hi.\\"}" }`,
      "    - { when: hello, reply: Hi. }",
      "steps:",
      "  - say: hello",
      "    expect: { judge: { rubric: Be warm and greet the person., pass: 0.5 } }",
      "  - say: hello again",
      "    expect: { judge: { rubric: Be brief. } }",
      "  - say: hello once more",
      "    expect: { judge: { rubric: Say hi. } }",
    ]);
    const { code, report } = await run({}, file);
    expect(code).toBe(1);
    expect(report).toContain(
      [
        `FAIL  judged  (${file})`,
        '  FAIL  say "hello"',
        "          judge 0.3 (pass 0.5): Curt, no greeting. (below the pass mark)",
        '  FAIL  say "hello again"',
        '          the judge did not answer with {"score", "reason"}: "I would say it is fine."',
        '  ok    say "hello once more"',
        "          judge 1 (pass 0.7): Says hi.",
      ].join("\n"),
    );
  }, 60_000);
});
