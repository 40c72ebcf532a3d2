import { afterEach } from "vitest";
import type { Provider } from "../../src/core/agent/provider.ts";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { providerFromEnv } from "../../src/runtime/provider-env.ts";
import { type FakeAnthropic, startFakeAnthropic } from "../../src/testing/fakes/anthropic.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";

/**
 * A bot on Claude (`claude-e2e`, on the Anthropic fake) whose people may
 * switch to an OpenAI-compatible model (`gpt-side`) with /model, as the
 * platforms' e2e tests on the Anthropic provider run it.
 */
export const TWO_MODELS_CONFIG: SwitchyardConfig = parseConfig(
  [
    "model:",
    "  provider: anthropic",
    "models:",
    "  list:",
    "    - name: claude-e2e",
    "      provider: anthropic",
    "      capabilities: { vision: true }",
    "    - name: gpt-side",
    "      provider: openai",
    "access:",
    "  dm: open",
  ].join("\n"),
  "test.yaml",
);

export interface TwoModels {
  readonly claude: FakeAnthropic;
  readonly openai: FakeOpenAI;
  /** The bot's provider, routing by model as `switchyard start` builds it from the environment. */
  readonly provider: Provider;
}

/**
 * Registers the cleanup and returns a starter: each call starts both fakes
 * (closed after the test) and the provider over them, the keys named after
 * `platform` so a request shows which test sent it.
 */
export function useTwoModels(platform: string): () => Promise<TwoModels> {
  const closing: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const c of closing.splice(0)) await c.close();
  });
  return async () => {
    const claude = await startFakeAnthropic({ apiKey: `sk-ant-${platform}` });
    const openai = await startFakeOpenAI();
    closing.push(claude, openai);
    const provider = providerFromEnv(
      {
        ANTHROPIC_API_KEY: `sk-ant-${platform}`,
        ANTHROPIC_BASE_URL: claude.url,
        OPENAI_API_KEY: `sk-openai-${platform}`,
        OPENAI_BASE_URL: openai.url,
        SWITCHYARD_MODEL: "claude-e2e",
      },
      { warn: () => {} },
      () => TWO_MODELS_CONFIG.model,
      () => TWO_MODELS_CONFIG.models,
    );
    return { claude, openai, provider };
  };
}
