import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * What is generated into docs/ at build time (TypeDoc's API reference) or belongs to
 * VitePress itself (its config, cache and build): not pages anyone writes.
 */
const GENERATED = /^docs\/(api|\.vitepress)\//;

/**
 * The manual's pages, as paths from the repository root: README.md, then every
 * markdown page under docs/ in path order.
 */
export function docPages(): string[] {
  const pages = readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .map((path) => `docs/${path.split("\\").join("/")}`)
    .filter((path) => path.endsWith(".md") && !GENERATED.test(path))
    .sort();
  return ["README.md", ...pages];
}

export function readPage(page: string): string {
  return readFileSync(join(ROOT, page), "utf8");
}
