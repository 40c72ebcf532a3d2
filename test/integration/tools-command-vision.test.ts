import { describe, expect, it } from "vitest";
import { runToolsCommand } from "../../src/cli/tools.ts";

/** The `vision` line `switchyard tools --json` prints, run as the CLI runs it, with this environment. */
async function visionFor(env: NodeJS.ProcessEnv): Promise<{ available: boolean; reason?: string }> {
  let out = "";
  const code = await runToolsCommand(["--json"], {
    env,
    readFile: () => "",
    stdout: (text) => {
      out += text;
    },
    stderr: () => {},
  });
  expect(code).toBe(0);
  const report = JSON.parse(out) as {
    attachments: { name: string; available: boolean; reason?: string }[];
  };
  const vision = report.attachments.find((entry) => entry.name === "vision");
  if (!vision) throw new Error(`no vision entry in ${out}`);
  const { name: _, ...status } = vision;
  return status;
}

describe("switchyard tools on attachments", () => {
  it("says no model is configured, not that the fallback model has no vision, when there is none", async () => {
    expect(await visionFor({})).toEqual({ available: false, reason: "no model is configured" });
  });

  it("names the model when one is configured and it has no vision", async () => {
    const vision = await visionFor({ OPENAI_API_KEY: "sk-test", SWITCHYARD_MODEL: "small-model" });
    expect(vision).toEqual({ available: false, reason: "the model small-model has no vision" });
  });
});
