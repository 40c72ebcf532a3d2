import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

/**
 * The floors of src/, lowest first: a module imports its own floor's modules
 * or lower floors' only. Read upward it is the life of a message: a platform
 * hands it to ingress, ingress queues it, the queue's worker runs the turn,
 * the turn delivers, and everything keeps its state in the store. `core` is
 * pure and below all of them; `ports` are the interfaces the floors meet at.
 * A floor is a folder (or a file) of src/, or a folder inside one: the
 * longest path that names a module decides. `testing` (the kit users test
 * their bots with, `switchyard/testing`) stands on top: it may import
 * anything, and nothing in src/ imports it, so a bot in production never
 * loads a fake.
 */
const LAYERS: Record<string, number> = {
  core: 0,
  ports: 1,
  observability: 1,
  store: 2,
  providers: 3,
  delivery: 3,
  tools: 4,
  turn: 5,
  queue: 6,
  ingress: 7,
  platforms: 8,
  ops: 9,
  runtime: 10,
  cli: 11,
  "cli.ts": 12,
  "index.ts": 12,
  testing: 13,
};

/** The flow a message takes, entry first: each floor sits above the next. */
const FLOW = ["platforms", "ingress", "queue", "turn", "delivery", "store", "core"];

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

/** The floor a module stands on: the longest path of LAYERS that holds it. */
function layerOf(file: string): string {
  const path = relative(SRC, file).split("/");
  for (let length = path.length; length > 0; length--) {
    const prefix = path.slice(0, length).join("/");
    if (prefix in LAYERS) return prefix;
  }
  return path[0] ?? "";
}

/** `platforms/slack` for a module of a platform's own folder, else undefined. */
function platformOf(file: string): string | undefined {
  const [top, name, ...rest] = relative(SRC, file).split("/");
  return top === "platforms" && rest.length > 0 && name !== "markdown"
    ? `${top}/${name}`
    : undefined;
}

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

  it("stand in the order a message travels: platforms, ingress, queue, turn, delivery, store, core", () => {
    const floors = FLOW.map((layer) => LAYERS[layer] as number);
    expect(floors).toEqual([...floors].sort((a, b) => b - a));
    expect(new Set(floors).size).toBe(FLOW.length);
  });

  it("keep each platform to its own folder: no platform imports another", () => {
    const across: string[] = [];
    for (const [file, targets] of edges) {
      const from = platformOf(file);
      for (const target of targets) {
        const to = platformOf(target);
        if (from && to && from !== to)
          across.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(across).toEqual([]);
  });

  it("keep the test kit out of production: no module outside src/testing imports it", () => {
    const testing = join(SRC, "testing");
    const into: string[] = [];
    for (const [file, targets] of edges) {
      if (file.startsWith(testing)) continue;
      for (const target of targets) {
        if (target.startsWith(testing))
          into.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(into).toEqual([]);
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
      LAYERS[layerOf(join(SRC, "platforms/slack/y.ts"))] as number,
    );
    expect(platformOf(join(SRC, "platforms/slack/y.ts"))).toBe("platforms/slack");
    expect(platformOf(join(SRC, "platforms/channel-kit.ts"))).toBeUndefined();
  });
});
