import { DuplicateToolError } from "./errors.ts";
import type { AnyTool } from "./tool.ts";

/**
 * The live tools of this process. Tools come and go at run time (an MCP server
 * connects, a plugin registers); every turn takes a snapshot as it is then.
 *
 * The order is by id, never by insertion: two processes that registered the
 * same tools in different orders, or a process that gained an unrelated tool,
 * produce the same bytes for the same enabled set.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, AnyTool>();
  #snapshot: readonly AnyTool[] | undefined;
  #frozenCopy: ToolRegistry | undefined;
  #frozen = false;
  #version = 0;

  constructor(tools: Iterable<AnyTool> = []) {
    for (const tool of tools) this.register(tool);
  }

  /**
   * The registry as it is now, frozen: what one turn freezes its contract from
   * and runs its calls against, so an MCP server's list change (or any other
   * registration) takes effect at the next turn boundary, never mid-turn
   * (rule 5). The same copy is handed out until the registry changes.
   */
  snapshot(): ToolRegistry {
    if (this.#frozen) return this;
    if (!this.#frozenCopy) {
      const copy = new ToolRegistry(this.#tools.values());
      copy.#frozen = true;
      copy.#version = this.#version;
      this.#frozenCopy = copy;
    }
    return this.#frozenCopy;
  }

  /** Adds a tool; a second tool with the same id is a {@link DuplicateToolError}. */
  register(tool: AnyTool): void {
    this.#assertLive();
    if (this.#tools.has(tool.id)) throw new DuplicateToolError(tool.id);
    this.#tools.set(tool.id, tool);
    this.#changed();
  }

  /** Removes a tool; returns whether it was there. */
  unregister(id: string): boolean {
    this.#assertLive();
    const removed = this.#tools.delete(id);
    if (removed) this.#changed();
    return removed;
  }

  /**
   * Replaces every tool of a family at once (an MCP server's tools/list). Ids
   * outside the family that collide are refused before anything changes.
   */
  replaceFamily(family: string, tools: readonly AnyTool[]): void {
    this.#assertLive();
    const seen = new Set<string>();
    for (const tool of tools) {
      const existing = this.#tools.get(tool.id);
      if (seen.has(tool.id) || (existing && existing.family !== family)) {
        throw new DuplicateToolError(tool.id);
      }
      seen.add(tool.id);
    }
    for (const [id, tool] of this.#tools) if (tool.family === family) this.#tools.delete(id);
    for (const tool of tools) this.#tools.set(tool.id, { ...tool, family });
    this.#changed();
  }

  get(id: string): AnyTool | undefined {
    return this.#tools.get(id);
  }

  has(id: string): boolean {
    return this.#tools.has(id);
  }

  get size(): number {
    return this.#tools.size;
  }

  /** Bumped on every change; a cheap way to know a cached expansion is stale. */
  get version(): number {
    return this.#version;
  }

  /** The tools sorted by id. The same array is returned until the registry changes. */
  list(): readonly AnyTool[] {
    if (!this.#snapshot) {
      this.#snapshot = Object.freeze(
        [...this.#tools.values()].sort((a, b) => compareIds(a.id, b.id)),
      );
    }
    return this.#snapshot;
  }

  /** Every family present, sorted. */
  families(): string[] {
    const families = new Set<string>();
    for (const tool of this.#tools.values()) if (tool.family) families.add(tool.family);
    return [...families].sort(compareIds);
  }

  #changed(): void {
    this.#snapshot = undefined;
    this.#frozenCopy = undefined;
    this.#version++;
  }

  #assertLive(): void {
    if (this.#frozen) {
      throw new TypeError(
        "This registry is a turn's frozen snapshot and cannot change; register tools on the live registry (the one snapshot() was called on).",
      );
    }
  }
}

/** Code-unit order: the same in every locale, on every machine. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
