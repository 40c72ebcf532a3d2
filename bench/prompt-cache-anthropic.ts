/**
 * Anthropic's prompt cache over a 20-turn conversation with one `/tools`
 * toggle (issue 32). Each turn's request is built as the worker builds it
 * (the frozen contract, the system prompt with its catalog, the history)
 * through the Anthropic provider's request builder, with its breakpoints,
 * and handed to the fake server's prefix-cache simulator (breakpoints, the
 * 20-block lookback, a minimum cacheable length). The ceiling of a turn is
 * what any placement could read at best: the blocks its request shares from
 * the start with the previous turn's. Beside it, the OpenAI-compatible
 * figure for the same conversation: the share of the request's bytes that
 * repeat the previous request from the start (automatic prefix caching).
 */
import type { ChatMessage } from "../src/core/agent/messages.ts";
import { buildSystemPrompt, DEFAULT_PERSONA } from "../src/core/agent/prompt.ts";
import { EMPTY_INTENT, type Intent, setKey } from "../src/core/availability/intent.ts";
import { freezeTurn } from "../src/core/loading/freeze.ts";
import { ToolRegistry } from "../src/core/tools/registry.ts";
import { buildMessagesRequest } from "../src/providers/anthropic/translate.ts";
import { buildChatRequest, toolsParser } from "../src/providers/openai-request.ts";
import { PromptCache } from "../src/testing/fakes/anthropic.ts";
import { DEMO_CAPABILITIES, demoTools } from "./demo-registry.ts";

const TURNS = 20;
/** The turn (1-based) before which a person turns one resident tool off. */
const TOGGLE_TURN = 10;
/** Anthropic's minimum cacheable prompt for most models. */
const MIN_CACHE_TOKENS = 1024;

export interface AnthropicCacheTurn {
  readonly turn: number;
  readonly prompt: number;
  readonly read: number;
  readonly written: number;
  /** The most any breakpoint placement could read on this turn. */
  readonly ceiling: number;
  readonly openAIShare: number;
}

export interface AnthropicCacheRun {
  readonly turns: readonly AnthropicCacheTurn[];
  readonly toggled: string;
  /** Where the breakpoints sat on the last turn. */
  readonly breakpoints: string;
}

/** Runs the conversation and returns every turn's figures; pure, for the bench and its test. */
export function runAnthropicCacheBench(): AnthropicCacheRun {
  const registry = new ToolRegistry(demoTools());
  const parse = toolsParser({ warn: () => {} });
  const cache = new PromptCache(MIN_CACHE_TOKENS, () => 0);
  const first = freezeTurn(registry, {}, EMPTY_INTENT, DEMO_CAPABILITIES);
  const toggled = first.resident.find((id) => id !== "tool_search") as string;
  const history: ChatMessage[] = [];
  const turns: AnthropicCacheTurn[] = [];
  let previousBlocks: string[] = [];
  let previousOpenAI = "";
  let breakpoints = "";
  for (let turn = 1; turn <= TURNS; turn++) {
    const intent: Intent =
      turn >= TOGGLE_TURN ? setKey(EMPTY_INTENT, toggled, "off") : EMPTY_INTENT;
    const contract = freezeTurn(registry, {}, intent, DEMO_CAPABILITIES);
    history.push({
      role: "user",
      content: `Question ${turn}: what changed since yesterday in the ${turn % 2 ? "billing" : "search"} service?`,
    });
    const request = {
      system: buildSystemPrompt({ persona: DEFAULT_PERSONA, catalog: contract.catalog }),
      messages: history,
      tools: contract.tools,
      cacheKey: "slack:T1:C1:1",
    };
    const built = buildMessagesRequest(
      request,
      { model: "claude-sonnet-4-6", maxTokens: 8192, cacheTtl: "5m" },
      parse(contract.tools),
    );
    const usage = cache.use(built.body as unknown as Record<string, unknown>);
    const blocks = blockKeys(built.body as unknown as Record<string, unknown>);
    const shared = sharedCount(previousBlocks, blocks);
    const tokens = blocks.map((b) => Math.ceil(b.length / 4));
    const prompt =
      usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
    const ceiling = tokens.slice(0, shared).reduce((a, b) => a + b, 0);
    const openAI = buildChatRequest(request, { model: "gpt-4.1-mini" }, parse(contract.tools));
    const openAIBody = JSON.stringify(openAI.tools ?? []) + JSON.stringify(openAI.messages);
    turns.push({
      turn,
      prompt,
      read: usage.cache_read_input_tokens,
      written: usage.cache_creation_input_tokens,
      ceiling: prompt >= MIN_CACHE_TOKENS ? ceiling : 0,
      openAIShare: turn === 1 ? 0 : commonPrefix(previousOpenAI, openAIBody) / openAIBody.length,
    });
    const { tools, system, messages } = built.breakpoints;
    breakpoints = `tools ${tools.map((i) => `#${i + 1} of ${contract.resident.length}`).join(", ")}; system ${system ? "end" : "none"}; messages ${messages.map(([m, b]) => `[${m + 1}.${b + 1}]`).join(" ")} of ${built.body.messages.length}`;
    previousBlocks = blocks;
    previousOpenAI = openAIBody;
    history.push({
      role: "assistant",
      content: `Answer ${turn}: nothing much changed; the ${turn % 2 ? "billing" : "search"} service had a quiet day.`,
    });
  }
  return { turns, toggled, breakpoints };
}

export function benchAnthropicPromptCache(print: (line: string) => void): boolean {
  const { turns, toggled, breakpoints } = runAnthropicCacheBench();
  const later = turns.slice(1);
  const share = (t: AnthropicCacheTurn) => (t.prompt === 0 ? 0 : t.read / t.prompt);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  print("");
  print(
    `Anthropic prompt cache: ${TURNS} turns, ${toggled} off before turn ${TOGGLE_TURN} (demo registry, prefix-cache simulator, min ${MIN_CACHE_TOKENS} tokens)`,
  );
  print("turn  prompt  read   written  ceiling  cached share  OpenAI-compatible share");
  for (const t of turns) {
    print(
      `${String(t.turn).padStart(4)}  ${String(t.prompt).padStart(6)}  ${String(t.read).padStart(5)}  ${String(t.written).padStart(7)}  ${String(t.ceiling).padStart(7)}  ${`${(share(t) * 100).toFixed(1)}%`.padStart(12)}  ${`${(t.openAIShare * 100).toFixed(1)}%`.padStart(23)}`,
    );
  }
  const atCeiling = later.every((t) => t.turn === TOGGLE_TURN || t.read === t.ceiling);
  const toggle = turns[TOGGLE_TURN - 1];
  const after = turns[TOGGLE_TURN];
  const oneWrite =
    toggle !== undefined &&
    toggle.read === 0 &&
    toggle.written > 0 &&
    (after?.read ?? 0) >= toggle.written;
  print(`breakpoints on the last turn: ${breakpoints}`);
  print(
    `mean cached share of turns 2-${TURNS}: Anthropic ${(mean(later.map(share)) * 100).toFixed(1)}%, OpenAI-compatible ${(mean(later.map((t) => t.openAIShare)) * 100).toFixed(1)}%`,
  );
  print(
    `reads at the simulator's ceiling on every turn but the toggle: ${atCeiling ? "met" : "MISSED"}`,
  );
  print(
    `the toggle costs one write of the prefix, read back on the next turn: ${oneWrite ? "met" : "MISSED"}`,
  );
  return atCeiling && oneWrite;
}

/** The simulator's view of a request: one key per block, in prefix order, without cache_control. */
function blockKeys(body: Record<string, unknown>): string[] {
  const keys: string[] = [];
  const add = (where: string, block: unknown) => {
    const { cache_control: _, ...rest } = block as Record<string, unknown>;
    keys.push(`${where}:${JSON.stringify(rest)}`);
  };
  for (const tool of (body.tools as unknown[]) ?? []) add("tool", tool);
  for (const block of (body.system as unknown[]) ?? []) add("system", block);
  for (const [i, m] of (
    (body.messages as { role: string; content: unknown[] }[]) ?? []
  ).entries()) {
    for (const block of m.content) add(`${i}:${m.role}`, block);
  }
  return keys;
}

function sharedCount(a: readonly string[], b: readonly string[]): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
