import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RecordedRequest, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import {
  connectRedis,
  deleteKeysUnder,
  envWithoutRedis,
  redisEnv,
  uniquePrefix,
} from "../support/redis.ts";
import { runConsoleStart } from "../support/start-command.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "switchyard.js");

// Under the checkout, so the plugin finds zod and Switchyard's source as an installed bot finds the package.
// The plugin imports that source (.ts) by path, which only the source run (through tsx) can load.
const FROM_SOURCE = { SWITCHYARD_FROM_DIST: "0" };
let dir: string;
const prefix = uniquePrefix("plugins");

beforeAll(() => {
  dir = mkdtempSync(join(ROOT, "test", ".tmp-plugins-start-"));
  const tool = JSON.stringify(join(ROOT, "src", "core", "tools", "tool.ts"));
  writeFileSync(
    join(dir, "weather.mjs"),
    `import { defineTool } from ${tool};
import { z } from "zod";
export const tools = [
  defineTool({
    id: "weather",
    description: "Current weather for a city.",
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => "Sunny and 21 C in " + city,
  }),
];
`,
  );
  writeFileSync(join(dir, "empty.mjs"), "export const answer = 42;\n");
  mkdirSync(join(dir, "conf"));
  writeFileSync(join(dir, "conf", "switchyard.yaml"), "plugins: [../weather.mjs]\n");
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const redis = connectRedis();
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

/** Calls the weather tool first, then answers with what it said. */
function weatherResponder(request: RecordedRequest) {
  const messages: { role: string; content: string }[] = request.body.messages;
  const result = messages.findLast((message) => message.role === "tool");
  if (result === undefined)
    return { toolCalls: [{ name: "weather", arguments: { city: "Lyon" } }] };
  return { content: `The tool says: ${result.content}` };
}

describe("switchyard start with plugins", () => {
  it("loads the config's plugins from the config file's folder, and the model can call their tools", async () => {
    const fake = await startFakeOpenAI({ responder: weatherResponder });
    try {
      const { code, stdout } = await runConsoleStart(
        "weather in Lyon?\n",
        {
          ...FROM_SOURCE,
          SWITCHYARD_PREFIX: prefix,
          OPENAI_BASE_URL: fake.url,
          OPENAI_API_KEY: "test",
        },
        ["--config", join(dir, "conf", "switchyard.yaml")],
        { cwd: ROOT },
      );
      expect(stdout).toBe("The tool says: Sunny and 21 C in Lyon\n");
      expect(code).toBe(0);
    } finally {
      await fake.close();
    }
  }, 60_000);

  it("shows the plugins' tools in switchyard tools, as the bot would have them", async () => {
    const tools = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [BIN, "tools", "--config", join(dir, "conf", "switchyard.yaml"), "--json"],
        { env: { ...envWithoutRedis(), ...redisEnv(), ...FROM_SOURCE }, timeout: 60_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    expect((JSON.parse(tools) as { resident: string[] }).resident).toContain("weather");
  }, 60_000);

  it("stops before starting anything when a --plugin exports nothing usable, naming the file and its exports", async () => {
    const { code, stdout, stderr } = await runConsoleStart(
      "",
      { SWITCHYARD_PREFIX: prefix },
      ["--plugin", "./empty.mjs"],
      { cwd: dir },
    );
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(
      `switchyard: The plugin ./empty.mjs (${join(dir, "empty.mjs")}) (from --plugin) exports nothing usable: it exports answer (number 42).`,
    );
  }, 60_000);
});
