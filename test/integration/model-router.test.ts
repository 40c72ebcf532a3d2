import { afterEach, describe, expect, it } from "vitest";
import { providerFromEnv } from "../../src/cli/platforms.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";

const fakes: FakeOpenAI[] = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

const silent = { warn: () => {} };

describe("models with a base_url of their own", () => {
  it("go to their server with their key; every other request goes to the bot's own", async () => {
    const own = await startFakeOpenAI();
    const far = await startFakeOpenAI();
    fakes.push(own, far);
    own.script({ content: "from the bot's own server" });
    far.script({ content: "from the far server" });
    const config = parseConfig(
      `models:\n  list:\n    - name: near-model\n    - name: far-model\n      base_url: ${far.url}\n      api_key_env: FAR_KEY\n`,
      "m.yaml",
    );
    const provider = providerFromEnv(
      {
        OPENAI_BASE_URL: own.url,
        OPENAI_API_KEY: "sk-own",
        FAR_KEY: "sk-far",
        SWITCHYARD_MODEL: "m",
      },
      silent,
      undefined,
      () => config.models,
    );
    const ask = (model?: string) =>
      provider.complete({
        system: "s",
        tools: "[]",
        messages: [{ role: "user", content: "hi" }],
        cacheKey: "c",
        ...(model ? { model } : {}),
      });
    expect((await ask("far-model")).content).toBe("from the far server");
    expect((await ask("near-model")).content).toBe("from the bot's own server");
    expect(far.requests.map((r) => [r.body.model, r.headers.authorization])).toEqual([
      ["far-model", "Bearer sk-far"],
    ]);
    expect(own.requests.map((r) => [r.body.model, r.headers.authorization])).toEqual([
      ["near-model", "Bearer sk-own"],
    ]);
  });
});
