import { execFile, execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DockerfileParser, type Instruction, JSONInstruction } from "dockerfile-ast";
import { describe, expect, it } from "vitest";
import { startOpsServer } from "../../src/observability/http.ts";
import { Metrics } from "../../src/observability/metrics.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dockerfile = DockerfileParser.parse(readFileSync(join(root, "deploy/Dockerfile"), "utf8"));

/** The instructions of each build stage, in order: a stage runs from its FROM to the next. */
function stages(): Instruction[][] {
  const result: Instruction[][] = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === "FROM") result.push([]);
    result.at(-1)?.push(instruction);
  }
  return result;
}

const runtime = stages().at(-1) ?? [];
const inRuntime = (keyword: string) => runtime.filter((i) => i.getKeyword() === keyword);

/** The words of an exec-form instruction (`CMD ["a", "b"]`), or undefined for the shell form. */
function execForm(instruction: Instruction | undefined): string[] | undefined {
  if (!(instruction instanceof JSONInstruction) || instruction.getOpeningBracket() === null) {
    return undefined;
  }
  return instruction.getJSONStrings().map((s) => s.getJSONValue());
}

describe("the container image (deploy/Dockerfile)", () => {
  it("builds in one node:20-slim stage and runs from another", () => {
    const froms = dockerfile.getFROMs();
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from.getImage()).toBe("node:20-slim");
    const buildRuns = (stages()[0] ?? []).map((i) => i.getArgumentsContent() ?? "");
    expect(buildRuns.join("\n")).toMatch(/npm ci/);
    expect(buildRuns.join("\n")).toMatch(/npm run build/);
  });

  it("runs as a non-root user with production dependencies only, and never tsx", () => {
    const user = inRuntime("USER").at(-1)?.getArgumentsContent() ?? "";
    expect(user).not.toBe("");
    expect(user.split(":")[0]).not.toMatch(/^(root|0)$/);
    const text = runtime.map((i) => `${i.getKeyword()} ${i.getArgumentsContent()}`).join("\n");
    expect(text).toMatch(/npm ci --omit=dev --ignore-scripts/);
    expect(text).toMatch(/NODE_ENV=production/);
    expect(text).not.toMatch(/tsx/);
    expect(text).not.toMatch(/COPY (--\S+ )*src\b/);
    const copied = inRuntime("COPY").map((i) => i.getArgumentsContent() ?? "");
    expect(copied).toEqual(expect.arrayContaining([expect.stringMatching(/\/dist \.\/dist$/)]));
  });

  it("checks /healthz, exposes the webhook and metrics ports, and starts under tini in exec form", () => {
    expect(inRuntime("HEALTHCHECK")).toHaveLength(1);
    expect(inRuntime("HEALTHCHECK")[0]?.getArgumentsContent()).toMatch(/healthcheck\.mjs/);
    const exposed = inRuntime("EXPOSE").flatMap((i) => i.getArguments().map((a) => a.getValue()));
    expect(exposed).toEqual(expect.arrayContaining(["3000", "9464"]));
    expect(execForm(inRuntime("ENTRYPOINT").at(-1))?.slice(0, 2)).toEqual(["/usr/bin/tini", "--"]);
    expect(execForm(inRuntime("CMD").at(-1))).toEqual(["switchyard", "start"]);
  });

  it("keeps tests, .git and node_modules out of the build context", () => {
    const ignored = readFileSync(join(root, ".dockerignore"), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    expect(ignored).toEqual(expect.arrayContaining([".git", "node_modules", "test"]));
  });
});

describe("the image's entrypoint script", () => {
  /** Runs the entrypoint with a stub `switchyard` on PATH that prints the arguments it got. */
  function entrypoint(args: string[], env: Record<string, string> = {}): string {
    const bin = mkdtempSync(join(tmpdir(), "sy-entry-"));
    try {
      writeFileSync(join(bin, "switchyard"), '#!/bin/sh\necho "$@"\n');
      chmodSync(join(bin, "switchyard"), 0o755);
      return execFileSync("sh", [join(root, "deploy/docker-entrypoint.sh"), ...args], {
        env: { PATH: `${bin}:/usr/bin:/bin`, ...env },
        encoding: "utf8",
      }).trim();
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }

  it("starts the role SWITCHYARD_ROLE names, unless --role is given", () => {
    expect(entrypoint(["switchyard", "start"], { SWITCHYARD_ROLE: "worker" })).toBe(
      "start --role worker",
    );
    expect(entrypoint(["switchyard", "start"])).toBe("start --role all");
    expect(
      entrypoint(["switchyard", "start", "--role", "ingress"], { SWITCHYARD_ROLE: "worker" }),
    ).toBe("start --role ingress");
    expect(entrypoint(["switchyard", "doctor"], { SWITCHYARD_ROLE: "worker" })).toBe("doctor");
  });
});

describe("the image's healthcheck script", () => {
  /** Runs deploy/healthcheck.mjs the way HEALTHCHECK does; resolves with its exit code and stderr. */
  function healthcheck(port: string): Promise<{ code: number; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [join(root, "deploy/healthcheck.mjs")],
        { env: { SWITCHYARD_METRICS_PORT: port } },
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
      );
    });
  }

  it("passes while /healthz answers and fails, saying why, once it does not", async () => {
    const ops = await startOpsServer({
      port: 0,
      host: "127.0.0.1",
      metrics: new Metrics(),
      ready: () => true,
    });
    const port = String(ops.port);
    expect(await healthcheck(port)).toEqual({ code: 0, stderr: "" });
    await ops.close();
    const down = await healthcheck(port);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(new RegExp(`/healthz on port ${port} did not answer`));
    expect((await healthcheck("0")).stderr).toMatch(
      /SWITCHYARD_METRICS_PORT=0 turns \/healthz off/,
    );
  });
});
