import { describe, expect, it } from "vitest";
import { hostFromEnv, StartOptionError } from "../../src/cli/platforms.ts";
import { ConfigError } from "../../src/core/config/index.ts";
import { consoleServedLine } from "../../src/ops/console/mount.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { opsHost } from "../../src/runtime/observe.ts";

const consoleOf = (text: string) => parseConfig(text, "switchyard.yaml").console;

describe("where the metrics and console server listens", () => {
  it("listens on this machine only when the console is enabled and nobody chose an address", () => {
    expect(opsHost(undefined, consoleOf("console:\n  enabled: true\n"))).toBe("127.0.0.1");
  });

  it("keeps every interface for metrics alone, so probes and Prometheus reach a pod's IP", () => {
    expect(opsHost(undefined, consoleOf(""))).toBeUndefined();
  });

  it("takes console.host from the config, and SWITCHYARD_METRICS_HOST over it", () => {
    const chosen = consoleOf("console:\n  enabled: true\n  host: 0.0.0.0\n");
    expect(opsHost(undefined, chosen)).toBe("0.0.0.0");
    expect(opsHost("10.0.0.5", chosen)).toBe("10.0.0.5");
    expect(
      opsHost(hostFromEnv({ SWITCHYARD_METRICS_HOST: "::" }, "SWITCHYARD_METRICS_HOST"), chosen),
    ).toBe("::");
  });

  it("refuses an address with a port or a scheme, saying what it takes", () => {
    expect(() => consoleOf("console:\n  host: http://0.0.0.0:9464\n")).toThrow(ConfigError);
    expect(() => consoleOf("console:\n  host: 9464\n")).toThrow(
      /expected an address to listen on, such as 127\.0\.0\.1 \(this machine only\) or 0\.0\.0\.0 \(every interface\), found/,
    );
    expect(() =>
      hostFromEnv({ SWITCHYARD_METRICS_HOST: "0.0.0.0:9464" }, "SWITCHYARD_METRICS_HOST"),
    ).toThrow(StartOptionError);
    expect(hostFromEnv({ SWITCHYARD_METRICS_HOST: "" }, "SWITCHYARD_METRICS_HOST")).toBeUndefined();
  });

  it("says at start where the console is, and how to reach it from other machines", () => {
    expect(consoleServedLine("127.0.0.1", 9464)).toBe(
      "console served on http://127.0.0.1:9464/console (this machine only: set console.host or SWITCHYARD_METRICS_HOST to 0.0.0.0 to reach it from other machines)",
    );
    expect(consoleServedLine("::", 9464)).toBe(
      "console served on http://127.0.0.1:9464/console, and on every interface of this machine",
    );
    expect(consoleServedLine("10.0.0.5", 9464)).toBe(
      "console served on http://10.0.0.5:9464/console",
    );
  });
});
