import { exec, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, it } from "vitest";
import { docPages, ROOT, readPage } from "../support/docs.ts";
import {
  connectRedis,
  deleteKeysUnder,
  envWithoutRedis,
  redisEnv,
  uniquePrefix,
} from "../support/redis.ts";

/**
 * The README and the pages under docs/ are the user's manual: every ```console
 * block in them is run and its output compared byte for byte, so what the
 * manual shows is what the code prints. Markers in HTML comments on the line before a fence:
 *
 * - `<!-- console-test: skip: why -->` before a console block whose output
 *   cannot be reproduced here (trimmed, or needs an installed package);
 * - `<!-- console-test: file NAME -->` before a ```yaml block: that block is
 *   the file NAME, for blocks on any page (a name is defined once);
 * - `<!-- console-test: needs NAME NAME -->` before a console block: those
 *   files sit in its working folder;
 * - `<!-- console-test: session ARGS -->` before a ```text block of a console
 *   conversation: its lines that start with "/" are typed into
 *   `switchyard start ARGS` and the other lines are what it prints (a file
 *   ARGS name is put in the folder).
 *
 * Each block runs in a folder of its own that links the checkout's bin/,
 * src/ and node_modules (so `./bin/switchyard.js` and `npm start` work as
 * they do in a checkout), with no model or platform credentials, and a key
 * prefix of its own so the console starts with an empty history.
 */
const run = promisify(exec);

interface Fence {
  readonly lang: string;
  readonly body: string;
  /** The marker on the line before the fence, if any. */
  readonly marker: string | undefined;
  /** Where it is: the page's path from the repository root, and the line of its opening fence. */
  readonly page: string;
  readonly line: number;
}

function fences(page: string, text: string): Fence[] {
  const lines = text.split("\n");
  const found: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? "");
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith("```"));
    const before = lines[i - 1]?.trim() ?? "";
    const marker = /^<!-- console-test: (.*) -->$/.exec(before)?.[1];
    found.push({
      lang: open[1] ?? "",
      body: lines.slice(i + 1, end).join("\n"),
      marker,
      page,
      line: i + 1,
    });
    i = end;
  }
  return found;
}

/** A console block's commands, each with the output printed after it. */
function sessions(body: string): { command: string; output: string }[] {
  const steps: { command: string; output: string[] }[] = [];
  for (const line of body.split("\n")) {
    if (line.startsWith("$ ")) steps.push({ command: line.slice(2), output: [] });
    else steps.at(-1)?.output.push(line);
  }
  return steps.map((step) => ({ command: step.command, output: step.output.join("\n") }));
}

const all = docPages().flatMap((page) => fences(page, readPage(page)));
const files = new Map<string, string>();
for (const fence of all) {
  const name = /^file (\S+)$/.exec(fence.marker ?? "")?.[1];
  if (name === undefined) continue;
  const defined = files.get(name);
  if (defined !== undefined && defined !== `${fence.body}\n`) {
    throw new Error(`${fence.page} line ${fence.line}: file ${name} is already a different block`);
  }
  files.set(name, `${fence.body}\n`);
}
const blocks = all.filter((fence) => fence.lang === "console");
const conversations = all.filter((fence) => fence.marker?.startsWith("session"));
const prefixes: string[] = [];
const folders: string[] = [];

/** A folder that looks like the checkout to the commands, with the files the block needs. */
function workspace(needs: readonly string[]): string {
  const folder = mkdtempSync(join(tmpdir(), "sy-readme-"));
  folders.push(folder);
  for (const name of ["bin", "src", "skills", "bench", "node_modules", "package.json"]) {
    symlinkSync(join(ROOT, name), join(folder, name));
  }
  for (const name of needs) {
    const text = files.get(name);
    if (text === undefined) throw new Error(`docs: no yaml block is marked as file ${name}`);
    writeFileSync(join(folder, name), text);
  }
  return folder;
}

/** What the commands run with: no model, no platform, a Redis and a key prefix of their own. */
function environment(prefix: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...envWithoutRedis(), ...redisEnv() };
  for (const name of Object.keys(env)) {
    if (/^(OPENAI_|SLACK_|DISCORD_|TELEGRAM_|SWITCHYARD_|LOG_LEVEL$|NODE_OPTIONS$)/.test(name)) {
      delete env[name];
    }
  }
  return { ...env, SWITCHYARD_PREFIX: prefix, SWITCHYARD_METRICS_PORT: "0" };
}

afterAll(async () => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  const redis = connectRedis();
  for (const prefix of prefixes) await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

// Each block runs in a folder and under a key prefix of its own, so they run side by side:
// most of each one's time is a command starting. Five blocks at once on a loaded 2-core
// machine took up to 90 s: the timeouts allow twice as long.
describe.concurrent("the console blocks of the README and docs/", () => {
  it("has console blocks, and every skipped one says why", ({ expect }) => {
    expect(blocks.length).toBeGreaterThan(5);
    expect(blocks.some((block) => block.page === "README.md")).toBe(true);
    for (const block of blocks) {
      if (block.marker?.startsWith("skip")) expect(block.marker).toMatch(/^skip: \S/);
    }
  });

  for (const block of blocks.filter((b) => !b.marker?.startsWith("skip"))) {
    it(`prints what ${block.page} line ${block.line} shows`, async ({ expect }) => {
      const needs = /^needs (.+)$/.exec(block.marker ?? "")?.[1]?.split(/\s+/) ?? [];
      const cwd = workspace(needs);
      for (const { command, output } of sessions(block.body)) {
        const prefix = uniquePrefix("readme");
        prefixes.push(prefix);
        const result = await run(command, {
          cwd,
          env: environment(prefix),
          shell: "/bin/bash",
          timeout: 120_000,
        }).catch((error: { stdout: string; stderr: string }) => error);
        // A failing command prints its message on stderr; the manual shows the terminal, both streams.
        const printed = `${result.stdout}${result.stderr}`.replace(/\n$/, "");
        expect({ command, printed }).toEqual({ command, printed: output });
      }
    }, 180_000);
  }

  for (const block of conversations) {
    it(`answers the console conversation at ${block.page} line ${block.line} as shown`, async ({
      expect,
    }) => {
      const args = block.marker?.split(/\s+/).slice(1) ?? [];
      const cwd = workspace(args.filter((arg) => files.has(arg)));
      const lines = block.body.split("\n");
      const typed = lines.filter((line) => line.startsWith("/"));
      const prefix = uniquePrefix("readme");
      prefixes.push(prefix);
      const child = spawn(join(cwd, "bin", "switchyard.js"), ["start", ...args], {
        cwd,
        env: environment(prefix),
        stdio: ["pipe", "pipe", "ignore"],
      });
      let printed = "";
      child.stdout.on("data", (chunk) => {
        printed += String(chunk);
      });
      child.stdin.end(`${typed.join("\n")}\n`);
      await new Promise((resolve) => child.once("exit", resolve));
      const shown = lines.filter((line) => !line.startsWith("/")).join("\n");
      expect(printed.replace(/\n$/, "")).toBe(shown);
    }, 180_000);
  }
});
