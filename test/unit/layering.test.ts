import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

/**
 * The layers of src/, lowest first: a module imports its own layer's
 * modules or lower layers' only. `core` is pure; `ports` are the interfaces
 * the shell's layers meet at; `conversation` is the resolved view both the
 * workers and the channels read; the entry points sit on top.
 */
const LAYERS: Record<string, number> = {
  core: 0,
  ports: 1,
  observability: 1,
  store: 2,
  providers: 2,
  skills: 2,
  redis: 2,
  conversation: 3,
  access: 3,
  workers: 4,
  tools: 4,
  channels: 5,
  app: 6,
  host: 6,
  console: 6,
  bot: 7,
  cli: 8,
  index: 9,
};

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return modules(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** Every module's relative imports inside src/, type-only ones included (a cycle of types is a cycle). */
function graph(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of modules(SRC)) {
    const text = readFileSync(file, "utf8");
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2];
      if (!spec?.startsWith(".")) continue;
      const target = resolve(dirname(file), spec);
      if (target.startsWith(SRC) && target.endsWith(".ts")) targets.push(target);
    }
    edges.set(file, targets);
  }
  return edges;
}

const layerOf = (file: string) => relative(SRC, file).split("/")[0]?.replace(/\.ts$/, "") ?? "";

/** Strongly connected components with more than one module, or a module importing itself. */
function cycles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Iterative Tarjan: src/ is small, but a recursive walk is the kind of thing this project avoids.
  for (const start of edges.keys()) {
    if (indices.has(start)) continue;
    const work: [string, number][] = [[start, 0]];
    while (work.length > 0) {
      const frame = work[work.length - 1] as [string, number];
      const [node, i] = frame;
      if (i === 0) {
        indices.set(node, index);
        low.set(node, index);
        index++;
        stack.push(node);
        onStack.add(node);
      }
      const next = edges.get(node) ?? [];
      if (i < next.length) {
        frame[1] = i + 1;
        const to = next[i] as string;
        if (!indices.has(to)) work.push([to, 0]);
        else if (onStack.has(to)) low.set(node, Math.min(low.get(node) ?? 0, indices.get(to) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1]?.[0];
      if (parent) low.set(parent, Math.min(low.get(parent) ?? 0, low.get(node) ?? 0));
      if (low.get(node) === indices.get(node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(relative(SRC, member));
        } while (member !== node);
        if (component.length > 1 || next.includes(node)) found.push(component.sort());
      }
    }
  }
  return found;
}

describe("the layers of src/", () => {
  const edges = graph();

  it("knows every top-level folder and file of src/", () => {
    const unknown = [...new Set([...edges.keys()].map(layerOf))].filter((l) => !(l in LAYERS));
    expect(unknown).toEqual([]);
  });

  it("import only downward: no module imports a layer at or above its own", () => {
    const upward: string[] = [];
    for (const [file, targets] of edges) {
      const from = layerOf(file);
      for (const target of targets) {
        const to = layerOf(target);
        if (to !== from && (LAYERS[to] ?? 99) >= (LAYERS[from] ?? 99)) {
          upward.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it("have no import cycle, type-only imports included", () => {
    expect(cycles(edges)).toEqual([]);
  });

  it("would see a cycle and an upward import if there were one", () => {
    const a = join(SRC, "core/a.ts");
    const b = join(SRC, "core/b.ts");
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([["core/a.ts", "core/b.ts"]]);
    expect(LAYERS[layerOf(join(SRC, "core/x.ts"))]).toBeLessThan(
      LAYERS[layerOf(join(SRC, "channels/y.ts"))] as number,
    );
  });
});
