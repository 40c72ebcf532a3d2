import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CUSTOM_ID_MAX,
  type ListClick,
  type ListKind,
  optionValue,
  pageId,
  parseListClick,
  pickId,
  resolveItem,
  scopeId,
  switchId,
  UI_SCOPES,
  type UiScope,
} from "../../src/platforms/discord/custom-id.ts";

/** Ids as tools, skills and whatever a future source may name things: long, odd, with the separator. */
const idArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
  fc.string({ minLength: 1, maxLength: 300 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 120 }),
  fc.constantFrom("a|b", "#abc", "x".repeat(100), "ツール", "mcp:github"),
);
const listArb = fc.constantFrom<ListKind>("tools", "skills");
const pageArb = fc.nat({ max: 999_999_999 });

/** What Discord sends back for a click on the control the bot made for `click`. */
function sent(click: ListClick, id?: string): { customId: string; values: string[] } {
  switch (click.kind) {
    case "pick":
      return {
        customId: pickId(click.list, click.scope, click.page),
        values: [optionValue(id ?? "")],
      };
    case "switch":
      return {
        customId: switchId(click.list, click.verb, click.scope, click.page, id ?? ""),
        values: [],
      };
    case "scope":
      return { customId: scopeId(click.list, click.page, id), values: [click.scope] };
    case "page":
      return { customId: pageId(click.list, click.scope, click.page), values: [] };
  }
}

const clickArb = fc
  .record({
    list: listArb,
    kind: fc.constantFrom("pick", "switch", "scope", "page"),
    verb: fc.constantFrom<"on" | "off">("on", "off"),
    page: pageArb,
    scopeIndex: fc.nat(),
    withItem: fc.boolean(),
  })
  .map(({ list, kind, verb, page, scopeIndex, withItem }) => {
    const scopes = UI_SCOPES[list] as readonly UiScope[];
    const scope = scopes[scopeIndex % scopes.length] as UiScope;
    const item = { id: "placeholder" };
    switch (kind) {
      case "pick":
        return { kind, list, scope, page, item } as ListClick;
      case "switch":
        return { kind, list, verb, scope, page, item } as ListClick;
      case "scope":
        return (
          withItem ? { kind, list, scope, page, item } : { kind, list, scope, page }
        ) as ListClick;
      default:
        return { kind: "page", list, scope, page } as ListClick;
    }
  });

describe("the Discord custom id codec", () => {
  it("keeps every custom id and option value within Discord's 100 characters, whatever the id", () => {
    fc.assert(
      fc.property(clickArb, idArb, (click, id) => {
        const { customId, values } = sent(click, id);
        expect(customId.length).toBeLessThanOrEqual(CUSTOM_ID_MAX);
        for (const value of values) expect(value.length).toBeLessThanOrEqual(CUSTOM_ID_MAX);
      }),
    );
  });

  it("reads back the click it made, naming the same item in the list as it is", () => {
    fc.assert(
      fc.property(
        clickArb,
        fc.uniqueArray(idArb, { minLength: 1, maxLength: 40 }),
        fc.nat(),
        (click, ids, at) => {
          const id = ids[at % ids.length] as string;
          const hasItem = "item" in click;
          const { customId, values } = sent(click, hasItem ? id : undefined);
          const parsed = parseListClick(customId, values);
          if (!parsed.ok) throw parsed.error;
          const { item, ...rest } = parsed.click as ListClick & { item?: never };
          const { item: _, ...expected } = click as ListClick & { item?: unknown };
          expect(rest).toEqual(expected);
          if (hasItem) {
            expect(item).toBeDefined();
            expect(resolveItem(item as never, ids)).toBe(id);
          } else {
            expect(item).toBeUndefined();
          }
        },
      ),
    );
  });

  it("refuses a hashed item the list no longer has, rather than switching another", () => {
    const long = `tool_${"x".repeat(120)}`;
    const parsed = parseListClick(switchId("tools", "off", "channel", 0, long), []);
    if (!parsed.ok || parsed.click.kind !== "switch") throw new Error("expected a switch");
    expect(resolveItem(parsed.click.item, [long])).toBe(long);
    expect(resolveItem(parsed.click.item, ["lookup", `${long}y`])).toBeUndefined();
  });

  it("never throws on a custom id it did not make, and says to run the command again", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `tools:${s}`),
          fc.string().map((s) => `skills:on|${s}`),
        ),
        fc.array(fc.string(), { maxLength: 2 }),
        (customId, values) => {
          const parsed = parseListClick(customId, values);
          if (!parsed.ok) expect(parsed.error.message).toMatch(/Run the command again/);
        },
      ),
    );
  });

  it("refuses scopes a list does not offer: skills have no conversation scope", () => {
    expect(parseListClick("skills:off|conversation|0|notes", []).ok).toBe(false);
    expect(parseListClick("tools:off|conversation|0|lookup", []).ok).toBe(true);
    expect(parseListClick("tools:scope|0|lookup", ["global"]).ok).toBe(false);
  });
});
