import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { consoleSection, DEFAULT_CONSOLE } from "../../src/core/config/console-section.ts";
import { DEFAULT_TELEMETRY, telemetrySection } from "../../src/core/config/telemetry-section.ts";
import { tracingWanted } from "../../src/observability/tracing-setup.ts";

function problem(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ZodError) return error.issues.map((i) => i.message).join(" | ");
    throw error;
  }
  return "";
}

describe("the telemetry: section", () => {
  it("is off, named switchyard and captures no content by default", () => {
    expect(telemetrySection.parse({})).toEqual(DEFAULT_TELEMETRY);
    expect(DEFAULT_TELEMETRY).toEqual({ serviceName: "switchyard", captureContent: false });
    expect(tracingWanted(DEFAULT_TELEMETRY, {})).toBe(false);
  });

  it("reads an endpoint, a service name and content capture", () => {
    const config = telemetrySection.parse({
      endpoint: "http://jaeger:4318",
      service_name: "bot",
      capture_content: true,
    });
    expect(config).toEqual({
      endpoint: "http://jaeger:4318",
      serviceName: "bot",
      captureContent: true,
    });
    expect(tracingWanted(config, {})).toBe(true);
  });

  it("turns on from the standard variables, and off with OTEL_SDK_DISABLED", () => {
    expect(tracingWanted(DEFAULT_TELEMETRY, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toBe(
      true,
    );
    const configured = telemetrySection.parse({ endpoint: "http://c:4318" });
    expect(tracingWanted(configured, { OTEL_SDK_DISABLED: "true" })).toBe(false);
  });

  it("says what is wrong", () => {
    expect(problem(() => telemetrySection.parse({ endpoint: "jaeger:4318" }))).toMatch(
      /expected an http\(s\) URL of an OTLP\/HTTP collector/,
    );
    expect(problem(() => telemetrySection.parse({ capture_content: "yes" }))).toBe(
      'expected true or false, found "yes".',
    );
    expect(problem(() => telemetrySection.parse({ capture: true }))).toBe(
      'unknown key "capture". The telemetry section takes endpoint:, service_name: and capture_content:.',
    );
  });

  it("answers any input with a config or a ZodError, nothing else", () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        try {
          telemetrySection.parse(input);
        } catch (error) {
          expect(error).toBeInstanceOf(ZodError);
        }
      }),
    );
  });
});

describe("the console: section", () => {
  it("is off unless enabled", () => {
    expect(consoleSection.parse({})).toEqual({ enabled: false });
    expect(DEFAULT_CONSOLE.enabled).toBe(false);
    expect(consoleSection.parse({ enabled: true })).toEqual({ enabled: true });
  });

  it("keeps the token out of the file", () => {
    expect(problem(() => consoleSection.parse({ token: "abc" }))).toBe(
      'unknown key "token". The console section takes enabled: and host: (the token stays in SWITCHYARD_CONSOLE_TOKEN).',
    );
    expect(problem(() => consoleSection.parse({ enabled: "on" }))).toBe(
      'expected true or false, found "on".',
    );
  });
});
