import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { LiveConfig } from "../../src/runtime/config-file.ts";

const OFF = "tools:\n  web_search: off\n  fetch_url: off\n";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A watched config file with the poller the CLI uses, polling fast so a test sees each save. */
function watched(initial: string) {
  const dir = mkdtempSync(join(tmpdir(), "sy-live-config-"));
  const file = join(dir, "switchyard.yaml");
  writeFileSync(file, initial);
  const warnings: string[] = [];
  const live = new LiveConfig(file, { warn: (message) => warnings.push(message) });
  const seen: SwitchyardConfig[] = [];
  live.watch((config) => seen.push(config), { intervalMs: 20, settleMs: 150 });
  const close = () => {
    live.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { file, live, seen, warnings, close };
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (check()) return;
  throw new Error(`timed out waiting for ${what}`);
}

/** Whether a config leaves both tools off: an empty `tools:` lets them follow the toolset, i.e. on. */
const bothOff = (config: SwitchyardConfig) =>
  config.tools.web_search === false && config.tools.fetch_url === false;

describe("the live config file", () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it.each([
    ["empty", ""],
    ["cut mid-file", "tools:\n  web_search: off\n"],
    ["cut mid-line", "tools:\n  web_search: off\n  fetch_url: o"],
  ])("never applies a file caught %s by an editor's two-step save", async (_, partial) => {
    const config = watched(OFF);
    cleanup = config.close;
    // The editor's first step: the file is truncated or half written...
    writeFileSync(config.file, partial);
    await sleep(60);
    // ...and its second: the whole new file, which adds a tool and keeps both off.
    writeFileSync(config.file, `${OFF}  current_time: on\n`);
    await until(() => config.seen.length > 0, "the full file to apply");
    await sleep(400);
    expect(config.seen.map((c) => c.tools)).toEqual([
      { web_search: false, fetch_url: false, current_time: true },
    ]);
    expect(config.seen.every(bothOff)).toBe(true);
    expect(bothOff(config.live.current)).toBe(true);
  });

  it("applies an intentionally emptied file once two reads agree", async () => {
    const config = watched(OFF);
    cleanup = config.close;
    writeFileSync(config.file, "");
    await until(() => config.seen.length > 0, "the empty file to apply");
    expect(config.seen.map((c) => c.tools)).toEqual([{}]);
    expect(config.live.current.tools).toEqual({});
  });

  it("keeps the last good config when the settled file is broken, and takes the fix", async () => {
    const config = watched(OFF);
    cleanup = config.close;
    writeFileSync(config.file, "tools:\n  web_search: maybe\n");
    await until(() => config.warnings.length > 0, "the warning about the broken file");
    expect(config.warnings[0]).toMatch(
      /web_search: "maybe" is not on\/off.*Keeping the last good config\.$/,
    );
    expect(bothOff(config.live.current)).toBe(true);
    expect(config.seen).toEqual([]);
    writeFileSync(config.file, "tools:\n  web_search: on\n");
    await until(() => config.seen.length > 0, "the fixed file to apply");
    expect(config.live.current.tools).toEqual({ web_search: true });
  });

  it("does not reload a file saved again with the same text", async () => {
    const config = watched(OFF);
    cleanup = config.close;
    writeFileSync(config.file, "tools:\n  web_search: on\n");
    await until(() => config.seen.length > 0, "the change to apply");
    writeFileSync(config.file, "tools:\n  web_search: on\n");
    await sleep(500);
    expect(config.seen).toHaveLength(1);
  });

  it("keeps the last good config while the file is missing, and reads it when it returns", async () => {
    const config = watched(OFF);
    cleanup = config.close;
    rmSync(config.file);
    await until(() => config.warnings.length > 0, "the warning about the missing file");
    expect(config.warnings[0]).toMatch(
      /^Cannot read the config file .*Keeping the last good config\.$/,
    );
    expect(bothOff(config.live.current)).toBe(true);
    writeFileSync(config.file, "tools:\n  fetch_url: on\n");
    await until(() => config.seen.length > 0, "the file to come back");
    expect(config.live.current.tools).toEqual({ fetch_url: true });
  });
});
