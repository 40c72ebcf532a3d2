import type { Capabilities } from "../src/core/availability/capabilities.ts";
import { EMPTY_INTENT } from "../src/core/availability/intent.ts";
import { freezeTurn } from "../src/core/loading/freeze.ts";
import type { LoadMode } from "../src/core/loading/modes.ts";
import { reportContract } from "../src/core/loading/report.ts";
import { ToolRegistry } from "../src/core/tools/registry.ts";
import { DEMO_CAPABILITIES, demoTools, syntheticTools } from "./demo-registry.ts";
import { formatNs, measurePair } from "./harness.ts";

const FREEZE_TARGET = 3;
const DISCOVER_SHARE_TARGET = 0.2;

/**
 * Freeze time per turn against a bare JSON.stringify of the same resident
 * array (tool objects as a provider SDK would serialize them), both measured
 * here and now. Returns whether the 200-tool target holds.
 */
export function benchFreeze(print: (line: string) => void): boolean {
  print("Freeze per turn vs bare JSON.stringify of the same resident array (default mode)");
  print("tools   freeze       stringify    ratio");
  let ok = true;
  for (const size of [50, 200, 1000]) {
    const tools = syntheticTools(size);
    const registry = new ToolRegistry(tools);
    const capabilities = Object.fromEntries(
      [...new Set(tools.map((t) => t.capability).filter((c): c is string => c !== undefined))].map(
        (c) => [c, { available: true as const }],
      ),
    );
    const contract = freezeTurn(registry, {}, EMPTY_INTENT, capabilities);
    const resident = contract.resident
      .map((id) => registry.get(id))
      .filter((t) => t !== undefined)
      .map((t) => ({
        type: "function",
        function: { name: t.id, description: t.description, parameters: t.jsonSchema },
      }));
    const { subject, baseline, ratio } = measurePair(
      () => freezeTurn(registry, {}, EMPTY_INTENT, capabilities).hash,
      () => JSON.stringify(resident),
    );
    const mark =
      size === 200
        ? ratio <= FREEZE_TARGET
          ? `  (target <= ${FREEZE_TARGET}x: met)`
          : `  (target <= ${FREEZE_TARGET}x: MISSED)`
        : "";
    if (size === 200 && ratio > FREEZE_TARGET) ok = false;
    print(
      `${String(size).padStart(5)}   ${formatNs(subject.median).padEnd(12)} ${formatNs(baseline.median).padEnd(12)} ${ratio.toFixed(2)}x${mark}`,
    );
  }
  return ok;
}

/** Tokens on the wire per load mode for the demo registry. Returns whether the discover target holds. */
export function benchModeTokens(print: (line: string) => void): boolean {
  return printModeTokens(print, "demo registry", new ToolRegistry(demoTools()), DEMO_CAPABILITIES);
}

/**
 * Tokens each load mode sends for one registry: resident schemas plus the
 * catalog of deferred names, against the full mode. Returns whether the
 * discover mode stays within its share.
 */
export function printModeTokens(
  print: (line: string) => void,
  title: string,
  registry: ToolRegistry,
  capabilities: Capabilities,
): boolean {
  const tokens = (mode: LoadMode) => {
    const report = reportContract(
      freezeTurn(registry, { runtime: { mode } }, EMPTY_INTENT, capabilities),
      registry,
    );
    return {
      ...report.tokens,
      residentCount: report.resident.length,
      deferredCount: report.deferred.length,
    };
  };
  const full = tokens("full");
  const fullTotal = full.resident + full.catalog;
  print("");
  print(`Tokens per mode, ${title} (${registry.size} tools)`);
  print("mode       resident  catalog  total    share of full");
  let ok = true;
  for (const mode of ["full", "default", "discover", "minimal"] as const) {
    const t = mode === "full" ? full : tokens(mode);
    const total = t.resident + t.catalog;
    const share = total / fullTotal;
    let mark = "";
    if (mode === "discover") {
      ok = share <= DISCOVER_SHARE_TARGET;
      mark = `  (target <= ${DISCOVER_SHARE_TARGET * 100}%: ${ok ? "met" : "MISSED"})`;
    }
    print(
      `${mode.padEnd(10)} ${String(t.resident).padStart(8)} ${String(t.catalog).padStart(8)} ${String(total).padStart(6)}   ${(share * 100).toFixed(1)}%${mark}   [${t.residentCount} resident, ${t.deferredCount} deferred]`,
    );
  }
  return ok;
}
