import { existsSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { docPages, ROOT, readPage } from "../support/docs.ts";

/**
 * Every link of the manual (the README and the pages under docs/) leads somewhere:
 * a relative link names a file that exists (a page, an image, a source file), and
 * an `#anchor` names a heading of its page, slugged as VitePress does. External
 * links are not fetched; links inside code are not links.
 */

/** VitePress's heading slugs (@mdit-vue/shared's slugify), which GitHub's match for these pages. */
function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/^(\d)/, "_$1")
    .toLowerCase();
}

/** A page's lines outside fenced code blocks, with their line numbers. */
function prose(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split("\n").forEach((line, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && open !== undefined) fence = open;
    else if (fence !== undefined && line.trim().startsWith(fence)) fence = undefined;
    else if (fence === undefined) lines.push({ line: i + 1, text: line });
  });
  return lines;
}

/** The anchors a page's headings get: each heading's slug, repeats numbered -1, -2, … */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const { text: line } of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const custom = /\s*\{#([^}]+)\}$/.exec(heading);
    const plain = heading
      .replace(/\s*\{#[^}]+\}$/, "")
      .replace(/`([^`]*)`/g, "$1")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/[*_]{1,2}([^*_]+)[*_]{1,2}/g, "$1");
    const slug = custom?.[1] ?? slugify(plain);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

interface Link {
  readonly page: string;
  readonly line: number;
  readonly target: string;
}

/** The inline links and images of a page's prose, not those inside `code`. */
function links(page: string, text: string): Link[] {
  const found: Link[] = [];
  for (const { line, text: raw } of prose(text)) {
    const bare = raw.replace(/`[^`]*`/g, "``");
    for (const match of bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ page, line, target: match[1] as string });
    }
  }
  return found;
}

/** Where a link's path leads from its page: a path from the root, or undefined when nothing is there. */
function resolve(page: string, path: string): string | undefined {
  const base = path.startsWith("/") ? join("docs", path) : join(dirname(page), path);
  const file = normalize(decodeURIComponent(base));
  const candidates = [file, `${file}.md`, join(file, "index.md")];
  return candidates.find((candidate) => {
    const full = join(ROOT, candidate);
    return existsSync(full) && (statSync(full).isFile() || candidate === file);
  });
}

/** Why a link does not resolve, or undefined when it does. */
function broken(link: Link, anchorsOf: (page: string) => Set<string>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined;
  const hash = link.target.indexOf("#");
  const path = hash < 0 ? link.target : link.target.slice(0, hash);
  const anchor = hash < 0 ? undefined : link.target.slice(hash + 1);
  const page = path === "" ? link.page : resolve(link.page, path);
  if (page === undefined) return `no file ${path}`;
  if (anchor === undefined) return undefined;
  if (!page.endsWith(".md")) return `#${anchor} on ${page}, which is not a page`;
  return anchorsOf(page).has(anchor) ? undefined : `no heading #${anchor} on ${page}`;
}

describe("the manual's links", () => {
  const pages = docPages();
  const cache = new Map<string, Set<string>>();
  const anchorsOf = (page: string): Set<string> => {
    let found = cache.get(page);
    if (found === undefined) {
      found = anchors(readPage(page));
      cache.set(page, found);
    }
    return found;
  };
  const all = pages.flatMap((page) => links(page, readPage(page)));

  it("reads the README and every page under docs/", () => {
    expect(pages[0]).toBe("README.md");
    expect(pages).toContain("docs/platforms/slack.md");
    expect(all.length).toBeGreaterThan(50);
  });

  it("lead to a file that exists and a heading that is there", () => {
    const wrong = all.flatMap((link) => {
      const why = broken(link, anchorsOf);
      return why === undefined ? [] : [`${link.page}:${link.line} (${link.target}): ${why}`];
    });
    expect(wrong).toEqual([]);
  });
});

describe("the link check itself", () => {
  it("slugs headings as VitePress does", () => {
    expect(slugify("Tools: who decides what the model sees")).toBe(
      "tools-who-decides-what-the-model-sees",
    );
    expect(slugify("/tools in chat")).toBe("tools-in-chat");
    expect(slugify("Plugins: your code without an entry file")).toBe(
      "plugins-your-code-without-an-entry-file",
    );
    expect(slugify("2 workers")).toBe("_2-workers");
  });

  it("numbers repeated headings and ignores headings inside code", () => {
    const page = "# Title\n\n## Setup\n\n```sh\n# not a heading\n```\n\n## Setup\n";
    expect([...anchors(page)]).toEqual(["title", "setup", "setup-1"]);
  });

  it("finds links in prose, not in code", () => {
    const page = "See [a](a.md#x) and `[b](b.md)`.\n\n```md\n[c](c.md)\n```\n![img](pic.png)\n";
    expect(links("docs/p.md", page).map((link) => link.target)).toEqual(["a.md#x", "pic.png"]);
  });

  it("reports a missing file, a missing heading and an anchor on a non-page", () => {
    const none = () => new Set<string>();
    const at = (target: string) => broken({ page: "README.md", line: 1, target }, none);
    expect(at("docs/nowhere.md")).toBe("no file docs/nowhere.md");
    expect(at("#nowhere")).toBe("no heading #nowhere on README.md");
    expect(at("package.json#x")).toBe("#x on package.json, which is not a page");
    expect(at("https://example.com/#x")).toBeUndefined();
    expect(at("package.json")).toBeUndefined();
  });
});
