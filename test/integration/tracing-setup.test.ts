import { context, propagation, trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_TELEMETRY, telemetrySection } from "../../src/core/config/telemetry-section.ts";
import { inSpan } from "../../src/observability/tracing.ts";
import { setupTracing } from "../../src/observability/tracing-setup.ts";
import { startFakeCollector } from "../fakes/otlp-collector.ts";

afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

describe("setting up traces", () => {
  it("loads nothing without an endpoint", async () => {
    expect(setupTracing(DEFAULT_TELEMETRY, {})).toBeUndefined();
    const recorded = await inSpan("switchyard.turn", {}, async (span) => span.isRecording());
    expect(recorded).toBe(false);
  });

  it("sends spans to the telemetry section's endpoint under its service name", async () => {
    const collector = await startFakeCollector();
    try {
      const config = telemetrySection.parse({
        endpoint: `${collector.url}/`,
        service_name: "bot-a",
      });
      const tracing = setupTracing(config, {});
      expect(tracing?.destination).toBe(`${collector.url}/v1/traces`);
      await inSpan("switchyard.turn", {}, async () => {});
      await tracing?.shutdown();
      expect(collector.spans.map((span) => [span.name, span.service])).toEqual([
        ["switchyard.turn", "bot-a"],
      ]);
    } finally {
      await collector.close();
    }
  });
});
