import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Every build input, with the folders (a deleted file changes its folder's time). */
function newestInput(): number {
  let newest = 0;
  const visit = (path: string) => {
    const stat = statSync(path);
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  for (const input of ["src", "scripts", "package.json", "tsconfig.json", "tsconfig.build.json"]) {
    visit(join(ROOT, input));
  }
  return newest;
}

/** The oldest file of dist/, or undefined when there is no complete build. */
function oldestOutput(): number | undefined {
  const dist = join(ROOT, "dist");
  if (!existsSync(join(dist, "index.js")) || !existsSync(join(dist, "cli.js"))) return undefined;
  let oldest = Number.POSITIVE_INFINITY;
  for (const name of readdirSync(dist, { recursive: true, encoding: "utf8" })) {
    const stat = statSync(join(dist, name));
    if (stat.isFile()) oldest = Math.min(oldest, stat.mtimeMs);
  }
  return oldest;
}

/**
 * Whether dist/ is a complete build newer than every input (CI's `npm ci`
 * has just built it through `prepare`): then it is what the source says, and
 * running it is running the source.
 */
export function buildIsFresh(): boolean {
  const built = oldestOutput();
  return built !== undefined && built > newestInput();
}
