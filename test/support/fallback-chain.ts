import { providerFromEnv } from "../../src/cli/platforms.ts";
import { findModel } from "../../src/core/config/index.ts";
import { Metrics } from "../../src/observability/metrics.ts";
import { parseConfig } from "../../src/platforms/config.ts";

/**
 * `claude-first` (Anthropic) falling back along `fallback` to `gpt-second`
 * (OpenAI-compatible), with the fallback metric, as `switchyard start`
 * builds the provider; the bot's own model is `ownModel`. `modelLines` go
 * under `model:` (e.g. `first_byte_ms: 300`).
 */
export function fallbackChain(options: {
  claudeUrl: string;
  claudeKey: string;
  openaiUrl: string;
  ownModel: string;
  fallback?: string;
  modelLines?: readonly string[];
}) {
  const { modelLines = [], fallback = "[gpt-second]", ownModel } = options;
  const config = parseConfig(
    [
      ...(modelLines.length > 0 ? ["model:", ...modelLines.map((line) => `  ${line}`)] : []),
      "models:",
      "  list:",
      "    - name: claude-first",
      "      provider: anthropic",
      `      fallback: ${fallback}`,
      "    - name: gpt-second",
      "      provider: openai",
      "",
    ].join("\n"),
    "m.yaml",
  );
  const metrics = new Metrics();
  const routed = providerFromEnv(
    {
      ANTHROPIC_API_KEY: options.claudeKey,
      ANTHROPIC_BASE_URL: options.claudeUrl,
      OPENAI_API_KEY: "sk-open",
      OPENAI_BASE_URL: options.openaiUrl,
      SWITCHYARD_MODEL: ownModel,
    },
    { warn: () => {} },
    // The bot's own model speaks its entry's protocol.
    () => ({ ...config.model, provider: findModel(config.models, ownModel)?.provider }),
    () => config.models,
    (e) => metrics.countModelFallback(e.from, e.to, e.reason),
  );
  return { metrics, routed };
}
