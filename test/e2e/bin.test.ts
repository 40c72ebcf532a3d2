import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

/**
 * bin/switchyard.js decides what to run from the folder it sits in: an installed
 * package (no src/) runs dist/ on plain node, a checkout runs src/ through tsx.
 * Each case copies the real bin into a folder laid out like one of them, with
 * a one-line CLI that says which one ran.
 */
const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/tsx", import.meta.url));
const run = promisify(execFile);

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

interface Layout {
  source?: boolean;
  built?: boolean;
  tsx?: boolean;
}

function layout({ source = false, built = false, tsx = false }: Layout): string {
  dir = mkdtempSync(join(tmpdir(), "sy-bin-"));
  writeFileSync(join(dir, "package.json"), '{ "name": "switchyard", "type": "module" }\n');
  mkdirSync(join(dir, "bin"));
  copyFileSync(BIN, join(dir, "bin", "switchyard.js"));
  if (source) {
    mkdirSync(join(dir, "src"));
    // Type annotations: only a TypeScript loader runs this.
    writeFileSync(join(dir, "src", "cli.ts"), 'const ran: string = "source";\nconsole.log(ran);\n');
  }
  if (built) {
    mkdirSync(join(dir, "dist"));
    writeFileSync(join(dir, "dist", "cli.js"), 'console.log("built");\n');
  }
  if (tsx) {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(TSX, join(dir, "node_modules", "tsx"), "dir");
  }
  return join(dir, "bin", "switchyard.js");
}

async function switchyard(bin: string, extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  // The suite's own setup may ask for the build (a fresh one): each case here says what it wants.
  if (extra.SWITCHYARD_FROM_DIST === undefined) delete env.SWITCHYARD_FROM_DIST;
  return run(process.execPath, [bin], { env, timeout: 30_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("bin/switchyard.js", () => {
  it("runs the built CLI on plain node in an installed package", async () => {
    const result = await switchyard(layout({ built: true }));
    expect(result).toMatchObject({ code: 0, stdout: "built\n", stderr: "" });
  });

  it("runs the TypeScript source in a checkout even when a build is there", async () => {
    const result = await switchyard(layout({ source: true, built: true, tsx: true }));
    expect(result).toMatchObject({ code: 0, stdout: "source\n" });
  });

  it("runs the build in a checkout when SWITCHYARD_FROM_DIST=1 asks for it", async () => {
    const result = await switchyard(layout({ source: true, built: true, tsx: true }), {
      SWITCHYARD_FROM_DIST: "1",
    });
    expect(result).toMatchObject({ code: 0, stdout: "built\n" });
  });

  it("runs the source when SWITCHYARD_FROM_DIST=1 finds no build", async () => {
    const result = await switchyard(layout({ source: true, tsx: true }), {
      SWITCHYARD_FROM_DIST: "1",
    });
    expect(result).toMatchObject({ code: 0, stdout: "source\n" });
  });

  it("falls back to the build in a checkout installed without dev dependencies", async () => {
    const result = await switchyard(layout({ source: true, built: true }));
    expect(result).toMatchObject({ code: 0, stdout: "built\n" });
  });

  it("says to install or build when a checkout has neither tsx nor dist/", async () => {
    const result = await switchyard(layout({ source: true }));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      /neither tsx \(run `npm install`.*nor a build \(run `npm run build`\)/,
    );
  });

  it("says the package was never built when an installed copy has no dist/", async () => {
    const result = await switchyard(layout({}));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /dist\/cli\.js is missing: this copy of the package was never built/,
    );
  });
});
