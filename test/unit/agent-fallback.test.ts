import { describe, expect, it } from "vitest";
import {
  type Provider,
  ProviderError,
  type ProviderRequest,
} from "../../src/core/agent/provider.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { withFallback } from "../../src/providers/fallback.ts";

const models = parseConfig(
  [
    "models:",
    "  list:",
    "    - { name: first, fallback: [second] }",
    "    - name: second",
    "    - name: third",
    "    - { name: gpt-fourth, provider: openai }",
  ].join("\n"),
  "m.yaml",
).models;

/** A model server where `first` is rate limited and every other model answers with its name. */
function server(asked: string[]): Provider {
  return {
    async complete(request: ProviderRequest) {
      const model = request.model ?? "own";
      asked.push(`${model} ${request.cacheKey}`);
      if (model === "first") throw new ProviderError("rate_limit", "slow down", 429);
      return {
        content: model,
        toolCalls: [],
        finishReason: "stop",
        usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
      };
    },
  };
}

const request: ProviderRequest = {
  system: "s",
  tools: "[]",
  messages: [],
  cacheKey: "c#agent:eng",
  model: "first",
};

describe("an agent's fallback chain", () => {
  it("replaces the model entry's own chain for that agent's requests", async () => {
    const asked: string[] = [];
    const provider = withFallback(server(asked), () => models, {
      ownModel: "own",
      ownProvider: "openai",
      logger: { warn: () => {} },
    });
    expect((await provider.complete({ ...request, fallback: ["third"] })).content).toBe("third");
    expect(asked).toEqual(["first c#agent:eng", "third c#agent:eng:openai:third"]);
  });

  it("sends a fallback to a cache key naming its provider and model, the same on every turn", async () => {
    const asked: string[] = [];
    // The bot's own protocol is Anthropic's: a listed model that names none speaks it too.
    const provider = withFallback(server(asked), () => models, {
      ownModel: "own",
      ownProvider: "anthropic",
      logger: { warn: () => {} },
    });
    for (let turn = 0; turn < 2; turn++) {
      await provider.complete({ ...request, fallback: ["third"] });
      await provider.complete({ ...request, fallback: ["gpt-fourth"] });
    }
    expect(asked.filter((line) => !line.startsWith("first "))).toEqual([
      "third c#agent:eng:anthropic:third",
      "gpt-fourth c#agent:eng:openai:gpt-fourth",
      "third c#agent:eng:anthropic:third",
      "gpt-fourth c#agent:eng:openai:gpt-fourth",
    ]);
  });

  it("leaves the entry's chain to requests without one", async () => {
    const asked: string[] = [];
    const provider = withFallback(server(asked), () => models, {
      ownModel: "own",
      ownProvider: "openai",
      logger: { warn: () => {} },
    });
    expect((await provider.complete(request)).content).toBe("second");
  });
});
