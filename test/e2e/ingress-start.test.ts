import { describe, expect, it } from "vitest";
import { runDoctorCommand } from "../../src/cli/doctor.ts";
import { redisEnv } from "../support/redis.ts";
import { runConsoleStart } from "../support/start-command.ts";

/**
 * An ingress runs the platforms' channels and nothing else. With no platform
 * configured it used to run the console on an empty stdin and exit 0 at
 * once, which a supervisor restarts forever; it must refuse, and say which
 * variables to set, and `switchyard doctor` must say the same.
 */
const NO_PLATFORM = {
  SLACK_BOT_TOKEN: "",
  SLACK_APP_TOKEN: "",
  SLACK_SIGNING_SECRET: "",
  DISCORD_TOKEN: "",
  TELEGRAM_BOT_TOKEN: "",
};
const NAMES_THE_VARIABLES = /SLACK_BOT_TOKEN.*DISCORD_TOKEN.*TELEGRAM_BOT_TOKEN/;

describe("an ingress with no platform configured", () => {
  it("refuses to start with --role ingress, naming the variables to set", async () => {
    const { code, stdout, stderr } = await runConsoleStart("", NO_PLATFORM, ["--role", "ingress"]);
    expect(code, stderr).toBe(2);
    expect(stderr).toMatch(NAMES_THE_VARIABLES);
    expect(stderr).toContain("ingress");
    expect(stdout).toBe("");
  }, 60_000);

  it("refuses to start with SWITCHYARD_ROLE=ingress, as the deploy files set it", async () => {
    const { code, stderr } = await runConsoleStart("", {
      ...NO_PLATFORM,
      SWITCHYARD_ROLE: "ingress",
    });
    expect(code, stderr).toBe(2);
    expect(stderr).toMatch(NAMES_THE_VARIABLES);
  }, 60_000);

  it("is a problem in switchyard doctor for role ingress, and fine for role all", async () => {
    const doctor = async (env: NodeJS.ProcessEnv) => {
      const lines: string[] = [];
      const code = await runDoctorCommand([], {
        env: { ...redisEnv(), ...NO_PLATFORM, ...env },
        print: (line) => lines.push(line),
        timeoutMs: 5_000,
      });
      return { code, platform: lines.filter((l) => l.split(/\s+/)[1] === "platform") };
    };
    const ingress = await doctor({ SWITCHYARD_ROLE: "ingress" });
    expect(ingress.code).toBe(1);
    expect(ingress.platform).toHaveLength(1);
    expect(ingress.platform[0]).toMatch(/^problem +platform /);
    expect(ingress.platform[0]).toMatch(NAMES_THE_VARIABLES);
    const all = await doctor({});
    expect(all.platform).toEqual([
      "ok       platform no platform configured: start runs the console channel",
    ]);
  }, 60_000);
});
