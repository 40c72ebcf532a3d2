import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  EMPTY_INTENT,
  type Intent,
  mount,
  readIntent,
  SWITCH_VALUES,
  writeIntent,
} from "../../src/core/availability/intent.ts";
import { runToolSearch } from "../../src/core/loading/discovery.ts";
import { freezeTurn } from "../../src/core/loading/freeze.ts";
import { LOAD_MODES } from "../../src/core/loading/modes.ts";
import { WarnOnce } from "../../src/core/logger.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import {
  applyOp,
  capabilitiesArb,
  type IntentOp,
  intentArb,
  intentOpArb,
  intentOpsArb,
  POOL_IDS,
  scopesArb,
  toolsArb,
} from "../support/arbitraries.ts";
import { tool } from "../support/tools.ts";

/** Reads back what was written; a readable intent reads with no problems. */
const roundTrip = (intent: Intent) => readIntent(writeIntent(intent));
const throughJson = (intent: Intent) =>
  readIntent(JSON.parse(JSON.stringify(writeIntent(intent))) as unknown);

describe("intent storage", () => {
  it("reads back exactly what it wrote, also through JSON", () => {
    fc.assert(
      fc.property(intentArb, (intent) => {
        expect(roundTrip(intent)).toEqual({ intent, problems: [] });
        expect(throughJson(intent)).toEqual({ intent, problems: [] });
        expect(JSON.stringify(writeIntent(throughJson(intent).intent))).toBe(
          JSON.stringify(writeIntent(intent)),
        );
      }),
    );
  });

  const fieldValue = fc.oneof(
    fc.constantFrom(...SWITCH_VALUES, ...LOAD_MODES, "research", "", null, 0, true, "pi"),
    fc.array(fc.constantFrom("web_search", "bad id!", "", "mcp:github"), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom("web_search", "mcp:github", "all", "bad key!"),
      fc.oneof(fc.boolean(), fc.string()),
    ),
    fc.anything(),
  );
  const storedArb = fc.oneof(
    fc.anything(),
    fc.jsonValue(),
    fc.record(
      {
        v: fc.oneof(fc.constant(1), fc.anything()),
        master: fieldValue,
        toolset: fieldValue,
        webSearch: fieldValue,
        decisions: fieldValue,
        picked: fieldValue,
        mode: fieldValue,
        mounted: fieldValue,
      },
      { requiredKeys: [] },
    ),
  );

  it("never throws on anything stored, and always reads a writable intent", () => {
    fc.assert(
      fc.property(storedArb, (stored) => {
        const { intent, problems } = readIntent(stored);
        expect(Array.isArray(problems)).toBe(true);
        expect(roundTrip(intent)).toEqual({ intent, problems: [] });
      }),
      { numRuns: 500 },
    );
  });
});

/** A registry far bigger than anything a person changes: 400 extra deferred tools. */
const extraTools = Array.from({ length: 400 }, (_, i) =>
  tool(`extra_${String(i).padStart(3, "0")}`, { defer: true }),
);

type Step =
  | { readonly kind: "op"; readonly op: IntentOp }
  | { readonly kind: "turn"; readonly load: string[] };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: intentOpArb.map((op) => ({ kind: "op" as const, op })) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.constantFrom(...POOL_IDS, "extra_007", "ghost"), { maxLength: 3 })
      .map((load) => ({ kind: "turn" as const, load })),
  },
);

describe("writes never materialize a list", () => {
  it("stores only what was passed: picks, decisions and mounts are subsets of the arguments", () => {
    fc.assert(
      fc.property(intentOpsArb, (ops) => {
        const intent = ops.reduce(applyOp, EMPTY_INTENT);
        const picked = new Set(ops.flatMap((o) => (o.op === "pick" ? o.ids : [])));
        const set = new Set(ops.flatMap((o) => (o.op === "set" ? [o.key] : [])));
        const mounted = new Set(ops.flatMap((o) => (o.op === "mount" ? o.ids : [])));
        for (const id of intent.picked ?? []) expect(picked.has(id)).toBe(true);
        for (const key of Object.keys(intent.decisions)) expect(set.has(key)).toBe(true);
        for (const id of intent.mounted) expect(mounted.has(id)).toBe(true);
      }),
    );
  });

  it("keeps the stored size bounded by what people changed, whatever the registry's size", () => {
    fc.assert(
      fc.property(
        toolsArb,
        scopesArb,
        capabilitiesArb,
        fc.array(stepArb, { maxLength: 15 }),
        (tools, scopes, capabilities, steps) => {
          const small = new ToolRegistry(tools);
          const big = new ToolRegistry([...tools, ...extraTools]);
          const run = (registry: ToolRegistry) => {
            let intent: Intent = EMPTY_INTENT;
            for (const step of steps) {
              if (step.kind === "op") {
                intent = applyOp(intent, step.op);
                continue;
              }
              // A turn: discovery loads what the model asked for; the loop mounts exactly that.
              const contract = freezeTurn(registry, scopes, intent, capabilities, {
                warnings: new WarnOnce(),
              });
              intent = mount(intent, runToolSearch(contract, registry, { load: step.load }).load);
            }
            return intent;
          };
          const inBig = run(big);
          const stored = JSON.stringify(writeIntent(inBig));

          let bound = 150;
          for (const step of steps) {
            if (step.kind === "turn") bound += step.load.reduce((n, id) => n + id.length + 3, 0);
            else if (step.op.op === "set") bound += step.op.key.length + 10;
            else if (step.op.op === "pick" || step.op.op === "mount") {
              bound += 12 + step.op.ids.reduce((n, id) => n + id.length + 3, 0);
            }
          }
          expect(stored.length).toBeLessThanOrEqual(bound);
          expect(stored).not.toMatch(/extra_(?!007)/);
          for (const id of inBig.mounted) {
            const asked = steps.some((s) =>
              s.kind === "turn"
                ? s.load.includes(id)
                : s.op.op === "mount" && s.op.ids.includes(id),
            );
            expect(asked).toBe(true);
          }
          if (!steps.some((s) => s.kind === "turn" && s.load.includes("extra_007"))) {
            expect(writeIntent(run(small))).toEqual(writeIntent(inBig));
          }
        },
      ),
    );
  });
});
