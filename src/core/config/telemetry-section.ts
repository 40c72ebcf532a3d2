import { z } from "zod";
import { describeValue } from "./errors.ts";
import { sectionMap } from "./section-map.ts";

/**
 * OpenTelemetry traces, sent over OTLP/HTTP. The standard `OTEL_*` variables
 * work too, and `OTEL_EXPORTER_OTLP_ENDPOINT` alone turns traces on.
 *
 * ```yaml
 * telemetry:
 *   endpoint: http://jaeger:4318   # the OTLP/HTTP collector; traces are off without one
 *   service_name: switchyard       # the service the spans are filed under
 *   capture_content: false         # true: tool arguments and results go into spans (personal data!)
 * ```
 *
 * Read at start.
 */
export interface TelemetryConfig {
  readonly endpoint?: string;
  readonly serviceName: string;
  readonly captureContent: boolean;
}

export const DEFAULT_TELEMETRY: TelemetryConfig = Object.freeze({
  serviceName: "switchyard",
  captureContent: false,
});

export const telemetrySection = sectionMap("telemetry", {
  endpoint: z
    .url({
      protocol: /^https?$/,
      error: (iss) =>
        `expected an http(s) URL of an OTLP/HTTP collector, e.g. http://localhost:4318, found ${describeValue(iss.input)}.`,
    })
    .optional(),
  service_name: z
    .string({ error: (iss) => `expected a service name, found ${describeValue(iss.input)}.` })
    .min(1, { error: "must not be empty; switchyard is the default." })
    .default(DEFAULT_TELEMETRY.serviceName),
  capture_content: z
    .boolean({
      error: (iss) => `expected true or false, found ${describeValue(iss.input)}.`,
    })
    .default(false),
}).transform(
  (t): TelemetryConfig =>
    Object.freeze({
      ...(t.endpoint ? { endpoint: t.endpoint } : {}),
      serviceName: t.service_name,
      captureContent: t.capture_content,
    }),
);
