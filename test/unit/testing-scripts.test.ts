import fc from "fast-check";
import { describe, expect, it } from "vitest";
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
