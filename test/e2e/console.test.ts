import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { type FakeOpenAI, startFakeOpenAI } from "../../src/testing/fakes/openai-server.ts";
import { connectRedis, deleteKeysUnder, uniquePrefix } from "../support/redis.ts";
import { runConsoleStart } from "../support/start-command.ts";

const fakes: FakeOpenAI[] = [];
const prefixes: string[] = [];
// After all: the cases run side by side, and one's cleanup must not stop another's model.
afterAll(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
  const redis = connectRedis();
  for (const prefix of prefixes.splice(0)) await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

/** A fake model of the case's own. */
async function startModel(): Promise<FakeOpenAI> {
  const fake = await startFakeOpenAI();
  fakes.push(fake);
  return fake;
}

// Each case starts its own process on a prefix (and model) of its own, so they run side by
// side: most of each one's time is the process starting. Five processes starting at once
// on a loaded 2-core machine take up to a minute: the timeouts allow twice that.
describe.concurrent("switchyard start with the console channel", () => {
  it("runs /tools, answers typed messages through the model with tombstones for tools that are off, and exits at the end of input", async ({
    expect,
    signal,
  }) => {
    const fake = await startModel();
    fake.script(
      { toolCalls: [{ id: "c1", name: "current_time", arguments: { timeZone: "UTC" } }] },
      { content: "It is late." },
    );
    const prefix = uniquePrefix("console");
    prefixes.push(prefix);
    const { code, stdout, stderr } = await runConsoleStart(
      "/tools off current_time\nwhat time is it?\n/tools\n",
      {
        SWITCHYARD_PREFIX: prefix,
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: "sk-test-secret-value",
        SWITCHYARD_MODEL: "fake-model",
      },
      [],
      { signal },
    );
    expect(code).toBe(0);
    expect(stdout).toContain("It is late.");
    expect(stdout).toContain("current_time is now off in this conversation");
    // The built-ins: web_search stays off at the floor until a provider is configured.
    expect(stdout).toContain("11 of 13 tools available");
    expect(stdout).toMatch(/read_attachment +deferred/);
    expect(stdout).toContain(
      "Attachments: vision off (the model fake-model has no vision); transcription off (no transcription endpoint: set transcription.base_url (and its key) in the config file); read_attachment on.",
    );
    expect(stdout).toMatch(/web_search +unavailable: no web search provider configured/);
    expect(stdout).toMatch(/send_message +deferred/);
    // The toggle came first, so the turn was frozen without the tool, and the model's
    // call to it was answered with a tombstone saying how to turn it back on.
    const offered = (fake.requests[0]?.body.tools ?? []).map(
      (t: { function: { name: string } }) => t.function.name,
    );
    expect(offered).not.toContain("current_time");
    expect(offered).toEqual([
      "cancel_reminder",
      "fetch_url",
      "forget",
      "list_reminders",
      "recall",
      "remember",
      "set_reminder",
      "skill",
      "tool_search",
    ]);
    expect(fake.requests[1]?.body.messages.at(-1)).toMatchObject({
      role: "tool",
      content: expect.stringContaining("/tools on current_time"),
    });
    expect(stderr).not.toContain("sk-test-secret-value");
  }, 120_000);

  it("answers a line over the inbound limit with the limit, sends it to nobody, and goes on", async ({
    expect,
    signal,
  }) => {
    const fake = await startModel();
    fake.script({ content: "Short one answered." });
    const prefix = uniquePrefix("console");
    prefixes.push(prefix);
    const { code, stdout } = await runConsoleStart(
      `${"x".repeat(100_001)}\nshort one\n`,
      {
        SWITCHYARD_PREFIX: prefix,
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: "test",
        SWITCHYARD_MODEL: "fake-model",
      },
      [],
      { signal },
    );
    expect(code).toBe(0);
    expect(stdout).toContain("That message is 100,001 characters long; I read at most 100,000.");
    expect(stdout).toContain("Short one answered.");
    expect(fake.requests).toHaveLength(1);
  }, 120_000);

  it("starts without a model and answers with the variables to set", async ({ expect, signal }) => {
    const prefix = uniquePrefix("console");
    prefixes.push(prefix);
    const env: Record<string, string> = {
      SWITCHYARD_PREFIX: prefix,
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
    };
    const { code, stdout } = await runConsoleStart("hello\n", env, [], { signal });
    expect(code).toBe(0);
    expect(stdout).toContain("No model is configured. Set OPENAI_API_KEY");
  }, 120_000);

  it("without a model, /tools says no model is configured and /usage counts no turn for the replies saying so", async ({
    expect,
    signal,
  }) => {
    const prefix = uniquePrefix("console");
    prefixes.push(prefix);
    const env: Record<string, string> = {
      SWITCHYARD_PREFIX: prefix,
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      SWITCHYARD_MODEL: "",
    };
    const first = await runConsoleStart("hello\nanyone there?\n/tools\n", env, [], { signal });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("No model is configured. Set OPENAI_API_KEY");
    expect(first.stdout).toContain("Attachments: vision off (no model is configured);");
    expect(first.stdout).not.toContain("has no vision");
    // A second run on the same conversation: the two replies above are in its history by now.
    const second = await runConsoleStart("/usage\n", env, [], { signal });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(
      "today: 0 tokens (prompt 0, cached 0, completion 0) in 0 turns",
    );
  }, 120_000);

  it("refuses a malformed --tools spec before starting anything", async ({ expect, signal }) => {
    const { code, stderr } = await runConsoleStart("", {}, ["--tools", "current_time=maybe"], {
      signal,
    });
    expect(code).toBe(2);
    expect(stderr).toContain('"maybe" is not one of on, off, ask, true, false');
  }, 120_000);

  it("refuses an unknown --mode label", async ({ expect, signal }) => {
    const { code, stderr } = await runConsoleStart("", {}, ["--mode", "turbo"], { signal });
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown load mode "turbo"');
  }, 120_000);

  it("/attach <path> sends a local file with the message, and refuses a file outside the working and temp folders", async ({
    expect,
    signal,
  }) => {
    const fake = await startModel();
    fake.script({ content: "Read it." });
    const prefix = uniquePrefix("console");
    prefixes.push(prefix);
    const dir = mkdtempSync(join(tmpdir(), "sy-console-"));
    const notes = join(dir, "notes.md");
    writeFileSync(notes, "# Plan\nShip the attachments.\n");
    const { code, stdout } = await runConsoleStart(
      `/attach ${notes} summarize this\n/attach /no/such/file.txt\n`,
      {
        SWITCHYARD_PREFIX: prefix,
        OPENAI_BASE_URL: fake.url,
        OPENAI_API_KEY: "test",
        SWITCHYARD_MODEL: "fake-model",
      },
      [],
      { signal },
    );
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(0);
    expect(stdout).toContain("Read it.");
    expect(stdout).toContain("There is no file at /no/such/file.txt.");
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.body.messages.at(-1).content).toBe(
      'summarize this\n\n[file: notes.md (text/markdown, 29 bytes), its text follows]\n<untrusted source="file notes.md">\n# Plan\nShip the attachments.\n</untrusted>',
    );
  }, 120_000);
});
