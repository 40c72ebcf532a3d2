import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ListEntry,
  type ListSpec,
  listComponents,
  listText,
  PAGE_SIZE,
  pageOf,
} from "../../src/platforms/discord/components.ts";
import {
  CUSTOM_ID_MAX,
  type ListKind,
  parseListClick,
  resolveItem,
  UI_SCOPES,
  type UiScope,
} from "../../src/platforms/discord/custom-id.ts";

interface JsonComponent {
  type: number;
  custom_id: string;
  label?: string;
  options?: { label: string; value: string; description?: string; default?: boolean }[];
}

const json = (spec: ListSpec, at: { scope: UiScope; page: number; picked?: string }) =>
  listComponents(spec, at).map((row) => row.toJSON() as { components: JsonComponent[] });

const entryArb: fc.Arbitrary<ListEntry> = fc.record({
  id: fc.oneof(fc.stringMatching(/^[a-z0-9_]{1,64}$/), fc.string({ minLength: 1, maxLength: 200 })),
  state: fc.string({ maxLength: 300 }),
  switchable: fc.boolean(),
});

const specArb = fc
  .record({
    list: fc.constantFrom<ListKind>("tools", "skills"),
    entries: fc.uniqueArray(entryArb, { maxLength: 120, selector: (e) => e.id }),
    scopeIndex: fc.nat(),
    page: fc.nat({ max: 10 }),
    pickIndex: fc.option(fc.nat()),
  })
  .map(({ list, entries, scopeIndex, page, pickIndex }) => {
    const scopes = UI_SCOPES[list] as readonly UiScope[];
    const spec: ListSpec = { list, title: `${entries.length} items`, footer: "footer", entries };
    const picked =
      pickIndex === null || entries.length === 0
        ? undefined
        : entries[pickIndex % entries.length]?.id;
    return {
      spec,
      at: {
        scope: scopes[scopeIndex % scopes.length] as UiScope,
        page,
        ...(picked !== undefined ? { picked } : {}),
      },
    };
  });

describe("the Discord list message's components", () => {
  it("stay within Discord's limits for any list: 5 rows, 25 options, unique ids of 100 characters that read back", () => {
    fc.assert(
      fc.property(specArb, ({ spec, at }) => {
        const rows = json(spec, at);
        expect(rows.length).toBeLessThanOrEqual(5);
        const ids = rows.flatMap((row) => row.components.map((c) => c.custom_id));
        expect(new Set(ids).size).toBe(ids.length);
        for (const row of rows) {
          expect(row.components.length).toBeGreaterThan(0);
          expect(row.components.length).toBeLessThanOrEqual(5);
          for (const c of row.components) {
            expect(c.custom_id.length).toBeLessThanOrEqual(CUSTOM_ID_MAX);
            expect(
              parseListClick(c.custom_id, c.options ? [c.options[0]?.value ?? ""] : []).ok,
            ).toBe(true);
            if (c.label !== undefined) expect(c.label.length).toBeLessThanOrEqual(80);
            if (!c.options) continue;
            expect(c.options.length).toBeGreaterThan(0);
            expect(c.options.length).toBeLessThanOrEqual(25);
            const values = c.options.map((o) => o.value);
            expect(new Set(values).size).toBe(values.length);
            for (const o of c.options) {
              expect(o.value.length).toBeLessThanOrEqual(100);
              expect(o.label.length).toBeLessThanOrEqual(100);
              expect((o.description ?? "").length).toBeLessThanOrEqual(100);
            }
          }
        }
        expect(listText(spec, at).length).toBeLessThanOrEqual(2_000);
      }),
    );
  });

  it("offers every switchable item on exactly one page, and page buttons reach every page", () => {
    fc.assert(
      fc.property(specArb, ({ spec, at }) => {
        const { pages } = pageOf(spec.entries, 0);
        const ids = spec.entries.map((e) => e.id);
        const offered: string[] = [];
        for (let page = 0; page < pages; page++) {
          const rows = json(spec, { scope: at.scope, page });
          const select = rows[0]?.components.find((c) => c.custom_id.includes(":pick|"));
          for (const option of select?.options ?? []) {
            const parsed = parseListClick(select?.custom_id ?? "", [option.value]);
            if (!parsed.ok || parsed.click.kind !== "pick") throw new Error("unreadable option");
            offered.push(resolveItem(parsed.click.item, ids) as string);
          }
          const targets = rows
            .flatMap((row) => row.components)
            .filter((c) => c.custom_id.includes(":page|"))
            .map((c) => Number(c.custom_id.split("|").at(-1)));
          const expected = [page - 1, page + 1].filter((p) => p >= 0 && p < pages);
          expect(targets).toEqual(pages > 1 ? expected : []);
        }
        expect(offered).toEqual(spec.entries.filter((e) => e.switchable).map((e) => e.id));
      }),
    );
  });

  it("shows a page past the end of a list that shrank as its last page", () => {
    const entries = Array.from({ length: 30 }, (_, i) => ({
      id: `tool_${i}`,
      state: "resident",
      switchable: true,
    }));
    const spec: ListSpec = {
      list: "tools",
      title: "30 of 30 tools available",
      footer: "",
      entries,
    };
    expect(listText(spec, { scope: "conversation", page: 7 })).toContain("Page 2 of 2.");
    expect(json(spec, { scope: "conversation", page: 7 })[0]?.components[0]?.options).toHaveLength(
      30 - PAGE_SIZE,
    );
  });
});
