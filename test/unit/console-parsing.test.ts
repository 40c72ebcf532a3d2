import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { conversationKey } from "../../src/core/conversation.ts";
import { consoleAuthorized } from "../../src/ops/console/auth.ts";
import { escapeHtml, html } from "../../src/ops/console/html.ts";
import { addressOf } from "../../src/store/activity-store.ts";

const TOKEN = "a-console-token-0123456789";
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("the console's authorization check", () => {
  it("takes the token as a bearer token or as basic auth's password", () => {
    expect(consoleAuthorized(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(consoleAuthorized(`bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(consoleAuthorized(basic("anyone", TOKEN), TOKEN)).toBe(true);
    expect(consoleAuthorized(basic(TOKEN, "x"), TOKEN)).toBe(false);
    expect(consoleAuthorized(`Bearer ${TOKEN}x`, TOKEN)).toBe(false);
    expect(consoleAuthorized(TOKEN, TOKEN)).toBe(false);
    expect(consoleAuthorized(undefined, TOKEN)).toBe(false);
    expect(consoleAuthorized("Bearer ", "")).toBe(false);
  });

  it("answers any header with a yes or no, and yes only for the token", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (header, token) => {
        const ok = consoleAuthorized(header, token);
        expect(typeof ok).toBe("boolean");
        if (ok)
          expect(header.includes(token) || header.toLowerCase().startsWith("basic")).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (user, token) => {
        expect(consoleAuthorized(basic(user.replaceAll(":", ""), token), token)).toBe(true);
      }),
    );
  });
});

describe("conversation keys in console URLs", () => {
  const part = fc.string({ minLength: 1, maxLength: 20 });
  it("reads back every address from its key", () => {
    fc.assert(
      fc.property(part, part, part, part, (platform, workspace, channel, conversation) => {
        const address = { platform, workspace, channel, conversation };
        expect(addressOf(conversationKey(address))).toEqual(address);
      }),
    );
  });

  it("refuses what is not a key, without throwing", () => {
    expect(addressOf("slack:T1:C1")).toBeUndefined();
    expect(addressOf("a:b:c:%E0%A4%A")).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (text) => {
        const address = addressOf(text);
        if (address) expect(Object.keys(address)).toHaveLength(4);
      }),
    );
  });
});

describe("the console's HTML", () => {
  it("escapes every interpolated value", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const out = html`<td title="${text}">${text}</td>`.text;
        expect(out).toBe(`<td title="${escapeHtml(text)}">${escapeHtml(text)}</td>`);
        expect(escapeHtml(text)).not.toMatch(/[<>"']/);
      }),
    );
  });
});
