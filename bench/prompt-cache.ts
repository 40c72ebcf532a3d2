/**
 * The provider's prompt cache across turns when people switch a tool to
 * `ask` and back (issue 27, rule 2): `ask` must change nothing the model
 * sees, so the cached share of every turn stays what it is when nobody
 * touches the tools. Each turn's request is built as the worker builds it
 * (the frozen contract's tools bytes, the system prompt with its catalog,
 * the history, through the OpenAI provider's request builder), serialized
 * as the SDK sends it (the tools first, as the model reads them, then the
 * messages), and a prefix cache is modelled: the share of the request's
 * bytes that repeat the previous turn's request from the start.
 * An `off` in the middle is printed too, to show the measure notices a real
 * change.
 */
import type { ChatMessage } from "../src/core/agent/messages.ts";
import { buildSystemPrompt, DEFAULT_PERSONA } from "../src/core/agent/prompt.ts";
import {
  EMPTY_INTENT,
  type Intent,
  type KeySwitch,
  setKey,
} from "../src/core/availability/intent.ts";
import { freezeTurn } from "../src/core/loading/freeze.ts";
import { ToolRegistry } from "../src/core/tools/registry.ts";
import { buildChatRequest, toolsParser } from "../src/providers/openai-request.ts";
import { DEMO_CAPABILITIES, demoTools } from "./demo-registry.ts";

/** Each turn's value for the switched keys; the first turn has no previous request to hit. */
type Plan = readonly KeySwitch[];

const TURNS = 5;
const PLANS: Readonly<Record<string, Plan>> = {
  "untouched (baseline)": ["on", "on", "on", "on", "on"],
  "on -> ask -> on": ["on", "ask", "on", "ask", "on"],
  "on -> off -> on": ["on", "off", "on", "off", "on"],
};

export function benchPromptCache(print: (line: string) => void): boolean {
  const registry = new ToolRegistry(demoTools());
  const parse = toolsParser({ warn: () => {} });
  // One resident tool and one deferred MCP family, switched at conversation scope as /tools does.
  const first = freezeTurn(registry, {}, EMPTY_INTENT, DEMO_CAPABILITIES);
  const resident = first.resident.find((id) => id !== "tool_search") as string;
  const switched = [resident, "mcp:github"];

  let asked = 0;
  const shares = (plan: Plan): number[] => {
    const out: number[] = [];
    const history: ChatMessage[] = [];
    let previous = "";
    for (let turn = 0; turn < TURNS; turn++) {
      let intent: Intent = EMPTY_INTENT;
      for (const key of switched) intent = setKey(intent, key, plan[turn] as KeySwitch);
      const contract = freezeTurn(registry, {}, intent, DEMO_CAPABILITIES);
      asked = Math.max(asked, contract.asking.size);
      history.push({
        role: "user",
        content: `Question ${turn + 1}: what changed since yesterday?`,
      });
      const request = buildChatRequest(
        {
          system: buildSystemPrompt({ persona: DEFAULT_PERSONA, catalog: contract.catalog }),
          messages: history,
          tools: contract.tools,
          cacheKey: "slack:T1:C1:1",
        },
        { model: "gpt-4.1-mini" },
        parse(contract.tools),
      );
      // In the order the model reads it: the tool definitions, then the system prompt and messages.
      const body = JSON.stringify(request.tools ?? []) + JSON.stringify(request.messages);
      if (turn > 0) out.push(commonPrefix(previous, body) / body.length);
      previous = body;
      history.push({ role: "assistant", content: `Answer ${turn + 1}: nothing much.` });
    }
    return out;
  };

  print("");
  print(
    `Prompt cache across turns: ${resident} and mcp:github switched at conversation scope (demo registry, ${registry.size} tools)`,
  );
  print(`plan                    cached share of turns 2-${TURNS}             mean`);
  const results = Object.entries(PLANS).map(([name, plan]) => {
    const each = shares(plan);
    const mean = each.reduce((a, b) => a + b, 0) / each.length;
    print(
      `${name.padEnd(23)} ${each.map((s) => `${(s * 100).toFixed(1)}%`.padStart(6)).join(" ")}       ${(mean * 100).toFixed(1)}%`,
    );
    return { name, each };
  });
  const baseline = results[0]?.each ?? [];
  const ask = results[1]?.each ?? [];
  // A vacuous run (nothing asked) would prove nothing.
  const same = asked > 0 && ask.every((share, i) => share === baseline[i]);
  print(`(${asked} tools ask in the ask turns)`);
  print(
    `ask vs baseline: ${same ? "identical on every turn (target: no change: met)" : "DIFFERENT (target: no change: MISSED)"}`,
  );
  return same;
}

/** How many leading characters two strings share. */
function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
