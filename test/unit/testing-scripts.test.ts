import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { judgeMessages, parseJudgeReply } from "../../src/testing/judge.ts";
import { RealModelError, realModelFromEnv } from "../../src/testing/real-model.ts";
import { parseScenario, ScenarioError, scenarioModel } from "../../src/testing/scenario.ts";
import { readModelRequest, scriptedModel } from "../../src/testing/scripted-model.ts";

/** A chat request as the bot sends it: the system prompt, the history, then any tool rounds. */
function request(user: string, rounds: { call: string; result: string }[] = []) {
  const messages: unknown[] = [
    { role: "system", content: "You are Kit." },
    { role: "user", content: "earlier" },
    { role: "assistant", content: "before" },
    { role: "user", content: user },
  ];
  rounds.forEach(({ call, result }, i) => {
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${i}`, type: "function", function: { name: call, arguments: "{}" } }],
    });
    messages.push({ role: "tool", tool_call_id: `c${i}`, content: result });
  });
  const body = { messages, tools: [{ type: "function", function: { name: "stock_level" } }] };
  return { body, headers: {}, rawBody: JSON.stringify(body) };
}

describe("the scripted model", () => {
  it("reads the last person's text, the tool results since, and the turn's step", () => {
    const read = readModelRequest(request("how many?", [{ call: "stock_level", result: "12" }]));
    expect(read).toMatchObject({
      lastUserText: "how many?",
      lastToolResult: "12",
      step: 1,
      tools: ["stock_level"],
      system: "You are Kit.",
    });
  });

  it("answers a rule's steps in turn order, the sequence first, and echoes what nothing matches", async () => {
    const model = scriptedModel({
      sequence: ["first of all"],
      rules: [
        {
          when: "kettle",
          reply: [{ tool: "stock_level", args: { p: 1 } }, (r) => `got ${r.lastToolResult}`],
        },
      ],
    });
    expect(await model(request("kettle?"))).toEqual({ content: "first of all" });
    expect(await model(request("kettle?"))).toEqual({
      toolCalls: [{ name: "stock_level", arguments: { p: 1 } }],
    });
    expect(await model(request("kettle?", [{ call: "stock_level", result: "12" }]))).toEqual({
      content: "got 12",
    });
    expect(await model(request("teapot?"))).toEqual({ content: "echo: teapot?" });
  });

  it("turns stalls and errors into the fake server's replies", async () => {
    const model = scriptedModel({ sequence: [{ stall: true }, { error: 503 }] });
    expect(await model(request("x"))).toMatchObject({ stallAfterChunks: 1 });
    expect(await model(request("x"))).toMatchObject({ status: 503 });
  });
});

describe("scenario files", () => {
  it("read a scenario's model with its templates filled from the request", async () => {
    const scenario = parseScenario(
      'name: n\nmodel:\n  rules:\n    - when: "kettle"\n      reply: ["{{lastUserText}} / {{lastToolResult}}"]\nsteps:\n  - say: hi\n',
      "s.yaml",
    );
    const model = scriptedModel(scenarioModel(scenario.model));
    expect(await model(request("kettle", [{ call: "t", result: "12" }]))).toEqual({
      content: "kettle / 12",
    });
  });

  it("either read any text or refuse it with a ScenarioError naming the file, never anything else", () => {
    const yamlish = fc.oneof(
      fc.string(),
      fc.json(),
      fc.constantFrom(
        "name: x\nsteps: []\n",
        "name: x\nsteps:\n  - say: 1\n",
        "steps:\n  - click: Go\n",
        "name: x\njudge_model: m\nsteps:\n  - say: hi\n    expect:\n      judge: { rubric: polite, pass: 0.7 }\n",
        "name: x\nsteps:\n  - say: hi\n    expect:\n      judge: { rubric: '', pass: 2 }\n",
        "name: x\nsteps:\n  - say: hi\n    expect:\n      judge: { pass: 0.5 }\n",
        "name: x\njudge_model: ''\nsteps:\n  - say: hi\n    expect: { judge: polite }\n",
      ),
    );
    fc.assert(
      fc.property(yamlish, (text) => {
        try {
          parseScenario(text, "f.yaml");
        } catch (error) {
          expect(error).toBeInstanceOf(ScenarioError);
          expect((error as Error).message.startsWith("f.yaml: ")).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("judge rubrics in scenario files", () => {
  const judged = (judge: string) =>
    `name: x\nsteps:\n  - say: hi\n    expect:\n      judge: ${judge}\n`;

  it("read a rubric with its pass mark, and the scenario's judge model", () => {
    const scenario = parseScenario(
      `judge_model: grader-1\n${judged("{ rubric: Says hello back., pass: 0.8 }")}`,
      "j.yaml",
    );
    expect(scenario.judge_model).toBe("grader-1");
    expect(scenario.steps[0]?.expect?.judge).toEqual({ rubric: "Says hello back.", pass: 0.8 });
  });

  it("refuse an empty rubric and a pass mark outside 0 to 1, naming the field", () => {
    expect(() => parseScenario(judged("{ rubric: ' ' }"), "j.yaml")).toThrow(
      /j\.yaml: steps\.0\.expect\.judge\.rubric: the rubric is empty/,
    );
    expect(() => parseScenario(judged("{ rubric: ok, pass: 7 }"), "j.yaml")).toThrow(
      /steps\.0\.expect\.judge\.pass/,
    );
  });

  it("any rubric and pass mark from 0 to 1 is read back as written", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((t) => t.trim() !== ""),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (rubric, pass) => {
          const text = judged(JSON.stringify({ rubric, pass }));
          const read = parseScenario(text, "j.yaml").steps[0]?.expect?.judge;
          expect(read).toEqual({ rubric: rubric.trim(), pass });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("the judge's reply", () => {
  it("is read from bare JSON, a code fence or a sentence around it", () => {
    expect(parseJudgeReply('{"score": 0.9, "reason": "Polite."}')).toEqual({
      score: 0.9,
      reason: "Polite.",
    });
    expect(parseJudgeReply('```json\n{"score": "0.4", "reason": "Rude."}\n```')).toEqual({
      score: 0.4,
      reason: "Rude.",
    });
    expect(parseJudgeReply('Verdict: {"score": 1} done')).toEqual({ score: 1, reason: "" });
  });

  it("says what is wrong with a reply it cannot read, quoting it", () => {
    expect(parseJudgeReply("Looks good to me!")).toBe(
      'the judge did not answer with {"score", "reason"}: "Looks good to me!"',
    );
    expect(parseJudgeReply("{score: high}")).toMatch(/^the judge's answer is not valid JSON/);
    expect(parseJudgeReply('{"score": 8, "reason": "x"}')).toMatch(
      /^the judge's score is not a number from 0 to 1/,
    );
  });

  it("is a verdict from 0 to 1 or a sentence, never a throw, whatever the model says", () => {
    const reply = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .record({
          score: fc.oneof(fc.double(), fc.string(), fc.constant(null)),
          reason: fc.anything(),
        })
        .map((o) => `Here: ${JSON.stringify(o)}`),
    );
    fc.assert(
      fc.property(reply, (text) => {
        const verdict = parseJudgeReply(text);
        if (typeof verdict === "string") {
          expect(verdict).toMatch(/^the judge/);
        } else {
          expect(verdict.score).toBeGreaterThanOrEqual(0);
          expect(verdict.score).toBeLessThanOrEqual(1);
          expect(typeof verdict.reason).toBe("string");
        }
      }),
      { numRuns: 500 },
    );
  });

  it("is asked with the rubric, the person's words and the answer", () => {
    const [, user] = judgeMessages({ rubric: "Be brief.", said: "hi", answer: "Hello!" });
    expect(user?.content).toBe(
      "Rubric:\nBe brief.\n\nThe person said:\nhi\n\nThe bot answered:\nHello!",
    );
  });
});

describe("--model real", () => {
  it("forwards to the model the environment names, through the cache file", () => {
    expect(
      realModelFromEnv(
        { OPENAI_API_KEY: "sk-1", OPENAI_BASE_URL: "http://x/v1", SWITCHYARD_MODEL: "m-1" },
        "c.json",
      ),
    ).toEqual({ baseURL: "http://x/v1", apiKey: "sk-1", model: "m-1", cacheFile: "c.json" });
  });

  it("replays a cache alone without a key, and without either says what to set", () => {
    expect(realModelFromEnv({}, "c.json")).not.toHaveProperty("apiKey");
    expect(() => realModelFromEnv({})).toThrow(/set OPENAI_API_KEY .* or give --cache FILE/);
    expect(() => realModelFromEnv({ ANTHROPIC_API_KEY: "a" })).toThrow(RealModelError);
  });
});
