import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Activity,
  lineText,
  statusText,
  toolActivity,
} from "../../src/core/delivery/activity.ts";

const status = (tool: string, args: unknown = {}, names?: (id: string) => string | undefined) =>
  statusText(toolActivity(tool, args, names));

describe("what a status says a turn is doing", () => {
  it("names the well-known tools in words, from one table", () => {
    expect(statusText({ kind: "thinking" })).toBe("is thinking…");
    expect(status("web_search", { query: "q" })).toBe("is searching the web…");
    expect(status("fetch_url", { url: "https://example.com/a/b?token=x" })).toBe(
      "is fetching example.com…",
    );
    expect(
      status("read_attachment", { document: "3f2a9c01b7e4", page: 2 }, (id) =>
        id === "3f2a9c01b7e4" ? "report.pdf" : undefined,
      ),
    ).toBe("is reading report.pdf…");
    expect(status("read_attachment", { document: "000000000000", page: 1 })).toBe(
      "is reading a document…",
    );
    expect(statusText({ kind: "approval" })).toBe("is waiting for approval…");
    expect(status("lookup", { word: "secret" })).toBe("is using lookup…");
    expect(status("mcp__github__search_issues", { q: "x" })).toBe(
      "is using search_issues (github)…",
    );
  });

  it("reads as a line of its own where the platform has no status (Discord)", () => {
    expect(lineText(toolActivity("web_search", {}))).toBe("Searching the web…");
    expect(lineText(toolActivity("lookup", {}))).toBe("Using lookup…");
  });

  it("fetch_url shows no host for what is not an http(s) URL", () => {
    expect(status("fetch_url", { url: "file:///etc/passwd" })).toBe("is fetching a web page…");
    expect(status("fetch_url", { url: "not a url" })).toBe("is fetching a web page…");
    expect(status("fetch_url", "nonsense")).toBe("is fetching a web page…");
  });

  it("never shows a tool's arguments beyond the host of a URL", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("web_search", "lookup", "fetch_url", "read_attachment", "mcp__a__b"),
        fc.string({ minLength: 1 }).map((s) => `ZQ${encodeURIComponent(s)}`),
        (tool, secret) => {
          const args = {
            query: secret,
            url: `https://host.example/${secret}?q=${secret}`,
            document: secret,
            word: secret,
          };
          const activity: Activity = toolActivity(tool, args);
          expect(statusText(activity)).not.toContain(secret);
          expect(lineText(activity)).not.toContain(secret);
        },
      ),
    );
  });
});
