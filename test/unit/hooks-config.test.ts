import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/core/config/errors.ts";
import { parseConfig } from "../../src/platforms/config.ts";

const FILE = "switchyard.yaml";

function loadError(text: string): string {
  try {
    parseConfig(text, FILE);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return "";
}

const REFERENCE = `\${CI_HOOK_SECRET}`;

const entry = (extra = "", prompt = '"CI failed: {{body.summary}}. Look at the log."') => `hooks:
  - name: ci-failed
    secret: \${CI_HOOK_SECRET}
    target: { platform: slack, workspace: T1, channel: C1 }
    owner: U1
    prompt: ${prompt}
${extra}`;

describe("the hooks: section", () => {
  it("is empty by default", () => {
    expect(parseConfig("", FILE).hooks).toEqual([]);
  });

  it("reads a hook: its secret as the variable's name, switchyard's signature by default, the prompt parsed", () => {
    const [hook] = parseConfig(entry(), FILE).hooks;
    expect(hook).toMatchObject({
      name: "ci-failed",
      secret: REFERENCE,
      signature: "switchyard",
      target: {
        platform: "slack",
        workspace: "T1",
        channel: "C1",
        conversation: "C1",
        kind: "group",
      },
      owner: { user: "U1" },
    });
    expect(hook?.prompt.parts).toEqual([
      { kind: "text", text: "CI failed: " },
      { kind: "path", path: ["summary"] },
      { kind: "text", text: ". Look at the log." },
    ]);
  });

  it("takes github and gitlab signatures and a thread target", () => {
    const [hook] = parseConfig(
      entry("    signature: github\n").replace("channel: C1 }", "channel: C1, thread: '1700.1' }"),
      FILE,
    ).hooks;
    expect(hook?.signature).toBe("github");
    expect(hook?.target).toMatchObject({ thread: "1700.1", conversation: "1700.1" });
  });

  it("refuses a secret written in the file, naming the variable form", () => {
    expect(loadError(entry().replace(REFERENCE, "hunter2hunter2"))).toContain(
      `secret: ${REFERENCE}`,
    );
  });

  it("refuses an unknown signature scheme, listing the three", () => {
    expect(loadError(entry("    signature: hmac\n"))).toMatch(/switchyard.*github.*gitlab/);
  });

  it("refuses a prompt that cannot be read, at hooks[0].prompt", () => {
    const message = loadError(entry("", '"CI failed: {{summary}}"'));
    expect(message).toContain("prompt");
    expect(message).toContain("starting with body");
  });

  it("refuses a name that cannot be a path, and two hooks of one name", () => {
    expect(loadError(entry().replace("name: ci-failed", "name: CI Failed"))).toContain(
      "/hooks/<name>",
    );
    const twice = `${entry()}${entry().replace("hooks:\n", "")}`;
    expect(loadError(twice)).toContain("name of an earlier hook");
  });

  it("names the key it does not know", () => {
    expect(loadError(entry("    secrets: x\n"))).toContain('unknown key "secrets"');
  });
});
