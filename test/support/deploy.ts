import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_MODEL_LIMITS } from "../../src/core/config/index.ts";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../../src/runtime/app.ts";

/** The repository root, for reading deploy/ and the docs. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export function readRepoFile(path: string): string {
  return readFileSync(join(ROOT, path), "utf8");
}

/**
 * What a stopping worker's grace period must cover: the longest step of a
 * turn, one model call's whole budget (retries included) and one tool call.
 * A turn checkpoints after every step, so one cut off later resumes elsewhere.
 */
export const LONGEST_STEP_SECONDS = (DEFAULT_MODEL_LIMITS.callMs + DEFAULT_TOOL_TIMEOUT_MS) / 1000;

/**
 * What a stopping ingress needs: its preStop sleep (5 s, while load balancers
 * drop it), the webhooks in flight (Slack wants its ack within 3 s), the MCP
 * servers' close (stdin, then SIGTERM and SIGKILL 2 s apart) and Redis's QUIT
 * (2 s at most), rounded up. It runs no turns, so nothing of a turn's length.
 */
export const INGRESS_STOP_SECONDS = 5 + 3 + 4 + 2;

/** The docs page whose table lists every environment variable. */
export const ENVIRONMENT_PAGE = "docs/config/environment.md";

/** Every variable the "Environment" table of the docs names, in its first column. */
export function documentedEnvironmentNames(): string[] {
  const page = readRepoFile(ENVIRONMENT_PAGE);
  const start = `\n${page}`.indexOf("\n# Environment\n");
  if (start < 0) throw new Error(`${ENVIRONMENT_PAGE} has no "# Environment" section`);
  const next = page.indexOf("\n#", start + 2);
  const section = page.slice(start, next < 0 ? undefined : next);
  const names = new Set<string>();
  for (const line of section.split("\n")) {
    const first = /^\|([^|]*)\|/.exec(line)?.[1] ?? "";
    for (const match of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(match[1] as string);
  }
  return [...names].sort();
}

/** `NAME=` and commented `# NAME=` lines of an env file: every variable it lists. */
export function envFileNames(text: string): string[] {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    const match = /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line.trim());
    if (match) names.add(match[1] as string);
  }
  return [...names].sort();
}

/** Seconds of a duration like `6m`, `90s`, `1m30s` (compose's stop_grace_period). */
export function durationSeconds(text: string): number {
  const parts = [...text.matchAll(/(\d+)(h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) {
    throw new Error(`"${text}" is not a duration like 6m or 90s`);
  }
  const unit = { h: 3600, m: 60, s: 1 } as const;
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u as keyof typeof unit], 0);
}

/** Whether `kubectl` runs here: its `kustomize` builds deploy/kubernetes as `kubectl apply -k` would. */
export const KUBECTL =
  spawnSync("kubectl", ["version", "--client"], { stdio: "ignore" }).status === 0;

/**
 * The YAML `kubectl kustomize` makes of deploy/kubernetes with `components`
 * (e.g. `["keda"]`), built from an overlay in a temporary folder as an
 * operator's own overlay would be. Throws with kustomize's message when the
 * build fails or warns.
 */
export function kustomize(components: readonly string[] = []): string {
  const overlay = mkdtempSync(join(tmpdir(), "sy-kustomize-"));
  try {
    const base = relative(overlay, join(ROOT, "deploy/kubernetes"));
    const listed = components.map((c) => `${base}/components/${c}`).join(", ");
    writeFileSync(
      join(overlay, "kustomization.yaml"),
      `resources: [${base}]\n${components.length > 0 ? `components: [${listed}]\n` : ""}`,
    );
    const built = spawnSync("kubectl", ["kustomize", overlay], { encoding: "utf8" });
    if (built.status !== 0 || built.stderr !== "") {
      throw new Error(`kubectl kustomize with [${components.join(", ")}]: ${built.stderr}`);
    }
    return built.stdout;
  } finally {
    rmSync(overlay, { recursive: true, force: true });
  }
}
