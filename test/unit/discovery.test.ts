import { describe, expect, it } from "vitest";
import { EMPTY_INTENT, setKey } from "../../src/core/availability/intent.ts";
import { runToolSearch } from "../../src/core/loading/discovery.ts";
import { describeDeferred, summaryOf } from "../../src/core/loading/discovery-tool.ts";
import { appendLoaded } from "../../src/core/loading/freeze.ts";
import { rankTools, tokenize } from "../../src/core/loading/search.ts";
import { freeze, mcpTool, registryOf, tool } from "../support/tools.ts";

const registry = registryOf(
  tool("current_time", { description: "The current date and time in a time zone." }),
  tool("run_python", {
    defer: true,
    description: "Run a Python snippet in a sandbox. Returns stdout and stderr.",
  }),
  tool("calendar_create", {
    defer: true,
    description: "Create a calendar event with a title, start time and attendees.",
  }),
  mcpTool("github", "create_issue", {
    description: "Create a new issue in a GitHub repository.",
  }),
  mcpTool("github", "list_issues", {
    description: "List issues in a GitHub repository, filtered by state and labels.",
  }),
  mcpTool("github", "merge_pull_request", { description: "Merge a pull request on GitHub." }),
  tool("shell", { defer: true, description: "Runs shell commands." }),
);
const contract = freeze(registry, {
  scopes: { global: { keys: { shell: false } } },
  capabilities: {},
});

describe("runToolSearch", () => {
  it("lists every deferred tool with its one-line summary when called with no arguments", () => {
    const outcome = runToolSearch(contract, registry, {});
    expect(outcome.load).toEqual([]);
    expect(outcome.text).toBe(
      [
        "5 deferred tools:",
        "- calendar_create: Create a calendar event with a title, start time and attendees.",
        "- mcp__github__create_issue: Create a new issue in a GitHub repository.",
        "- mcp__github__list_issues: List issues in a GitHub repository, filtered by state and labels.",
        "- mcp__github__merge_pull_request: Merge a pull request on GitHub.",
        "- run_python: Run a Python snippet in a sandbox.",
      ].join("\n"),
    );
    expect(runToolSearch(contract, registry, undefined).text).toBe(outcome.text);
  });

  it("ranks deferred tools by relevance to a query, best first", () => {
    const outcome = runToolSearch(contract, registry, { query: "github issues" });
    expect(outcome.load).toEqual([]);
    const lines = outcome.text.split("\n");
    expect(lines[0]).toBe('Deferred tools matching "github issues", best first:');
    expect(
      lines
        .slice(1, 3)
        .map((l) => l.split(":")[0])
        .sort(),
    ).toEqual(["- mcp__github__create_issue", "- mcp__github__list_issues"]);
    expect(lines[3]).toBe("- mcp__github__merge_pull_request: Merge a pull request on GitHub.");
    expect(lines).toHaveLength(4);
  });

  it("does not search tools that are resident or disabled", () => {
    expect(runToolSearch(contract, registry, { query: "shell commands" }).text).toBe(
      'No deferred tool matches "shell commands". Call tool_search with no arguments to list all 5.',
    );
    expect(runToolSearch(contract, registry, { query: "current time zone" }).text).not.toContain(
      "current_time",
    );
  });

  it("loads named deferred tools and says they can be called from the next step", () => {
    const outcome = runToolSearch(contract, registry, {
      load: ["run_python", "calendar_create", "run_python"],
    });
    expect(outcome.load).toEqual(["run_python", "calendar_create"]);
    expect(outcome.text).toBe(
      "Loaded: run_python, calendar_create. You can call them from your next step on.",
    );
  });

  it("loads every tool of a braced catalog line copied as it is written", () => {
    const outcome = runToolSearch(contract, registry, {
      load: ["mcp__github__{create_issue,list_issues}"],
    });
    expect(outcome.load).toEqual(["mcp__github__create_issue", "mcp__github__list_issues"]);
  });

  it("answers already loaded, the tombstone, or no such tool for names it cannot load", () => {
    const loaded = appendLoaded(contract, registry, ["run_python"]);
    const outcome = runToolSearch(loaded, registry, {
      load: ["calendar_create", "run_python", "current_time", "shell", "teleport"],
    });
    expect(outcome.load).toEqual(["calendar_create"]);
    expect(outcome.text).toBe(
      [
        "Loaded: calendar_create. You can call them from your next step on.",
        "run_python is already loaded.",
        "current_time is already loaded.",
        'Tool "shell" is disabled by the global scope. A person can re-enable it with /tools on shell. Tell them, and do without it for now.',
        'There is no tool named "teleport". Call tool_search to find a tool that does what you need.',
      ].join("\n"),
    );
  });

  it("lists what is left after loading when a query comes with the load", () => {
    const outcome = runToolSearch(contract, registry, { load: ["run_python"], query: "python" });
    expect(outcome.text).toBe(
      [
        "Loaded: run_python. You can call them from your next step on.",
        'No deferred tool matches "python". Call tool_search with no arguments to list all 4.',
      ].join("\n"),
    );
  });

  it("says so when nothing is waiting to be loaded", () => {
    const all = appendLoaded(contract, registry, contract.deferred);
    expect(runToolSearch(all, registry, {}).text).toBe(
      "No tools are waiting to be loaded: every available tool is already loaded.",
    );
  });

  it("answers malformed arguments with how to call it, and loads nothing", () => {
    const outcome = runToolSearch(contract, registry, { load: "run_python" });
    expect(outcome.load).toEqual([]);
    expect(outcome.text).toMatch(
      /^tool_search takes \{"query"\?: string, "load"\?: string\[\]\}: /,
    );
  });

  it("never loads a tool a person switched off, whatever the model asks", () => {
    const off = freeze(registry, { intent: setKey(EMPTY_INTENT, "run_python", "off") });
    const outcome = runToolSearch(off, registry, { load: ["run_python"] });
    expect(outcome.load).toEqual([]);
    expect(appendLoaded(off, registry, ["run_python"])).toBe(off);
  });
});

describe("search", () => {
  it("tokenizes into lowercase stems: plurals and -ing", () => {
    expect(tokenize("Listing GitHub issues, tools & repositories")).toEqual([
      "list",
      "github",
      "issue",
      "tool",
      "repository",
    ]);
  });

  it("finds a tool by a word of its name or description", () => {
    const docs = [
      { id: "create_issue", text: "Open a ticket." },
      { id: "send_mail", text: "Send an email message." },
    ];
    expect(rankTools(docs, "issues").map((h) => h.id)).toEqual(["create_issue"]);
    expect(rankTools(docs, "email").map((h) => h.id)).toEqual(["send_mail"]);
    expect(rankTools(docs, "")).toEqual([]);
    expect(rankTools([], "email")).toEqual([]);
  });

  it("breaks ties by name and caps the list", () => {
    const docs = ["d", "b", "c", "a"].map((id) => ({ id, text: "same words here" }));
    expect(rankTools(docs, "words").map((h) => h.id)).toEqual(["a", "b", "c", "d"]);
    expect(rankTools(docs, "words", 2).map((h) => h.id)).toEqual(["a", "b"]);
  });

  it("summarizes a description by its first sentence, capped with an ellipsis", () => {
    expect(summaryOf("Does a thing. Then more.")).toBe("Does a thing.");
    expect(summaryOf("First line\nsecond line")).toBe("First line");
    expect(summaryOf("No full stop")).toBe("No full stop");
    const long = `${"word ".repeat(40)}end.`;
    const summary = summaryOf(long);
    expect(summary.length).toBeLessThanOrEqual(120);
    expect(summary.endsWith("…")).toBe(true);
  });

  it("describes an empty query as a listing", () => {
    expect(describeDeferred(registry, ["run_python"], "  ")).toBe(
      "1 deferred tools:\n- run_python: Run a Python snippet in a sandbox.",
    );
  });
});
