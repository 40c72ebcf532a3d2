import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ID,
  REDACTED,
  redactedUrlAttributes,
  redactPath,
  redactQuery,
} from "../../src/observability/tracing-redaction.ts";

/** Bot API tokens as @BotFather makes them: the bot's id, a colon, a secret. */
const token = fc
  .tuple(fc.integer({ min: 1, max: 9_999_999_999 }), fc.stringMatching(/^[A-Za-z0-9_-]{20,40}$/))
  .map(([id, secret]) => `${id}:${secret}`);
// No "." or ".." segments (a URL resolves those away before any span sees it), and
// none all digits (those are platform ids, replaced on their own).
const segment = fc.stringMatching(/^([a-z_~-][A-Za-z0-9_~-]{0,11})?$/);
const snowflake = fc.bigInt({ min: 10n ** 16n, max: 10n ** 19n }).map(String);

describe("what HTTP client spans say of a URL", () => {
  it("never keeps a Telegram token, in a method URL or a file URL, plain or encoded", () => {
    fc.assert(
      fc.property(token, fc.array(segment, { maxLength: 3 }), fc.boolean(), (t, rest, file) => {
        const tail = rest.length ? `/${rest.join("/")}` : "";
        for (const written of [t, t.replace(":", "%3A")]) {
          const url = new URL(
            `https://api.telegram.org${file ? "/file" : ""}/bot${written}${tail}`,
          );
          const attributes = redactedUrlAttributes(url, true);
          const said = JSON.stringify(attributes);
          expect(said).not.toContain(t.split(":")[1]);
          expect(attributes["url.path"]).toBe(`${file ? "/file" : ""}/bot${REDACTED}${tail}`);
        }
      }),
    );
  });

  it("never keeps a Discord interaction token, nor the ids around it", () => {
    fc.assert(
      fc.property(
        snowflake,
        fc.stringMatching(/^[A-Za-z0-9_.-]{30,120}$/),
        fc.constantFrom("/interactions/%/#/callback", "/webhooks/%/#/messages/@original"),
        (id, token, route) => {
          const path = `/api/v10${route.replace("%", id).replace("#", token)}`;
          const redacted = redactPath(path);
          expect(redacted).not.toContain(token);
          expect(redacted).not.toContain(id);
          expect(redacted).toBe(`/api/v10${route.replace("%", ID).replace("#", REDACTED)}`);
        },
      ),
    );
  });

  it("shows a route with its platform ids replaced", () => {
    fc.assert(
      fc.property(snowflake, snowflake, (channel, message) => {
        expect(redactPath(`/api/v10/channels/${channel}/messages/${message}`)).toBe(
          `/api/v10/channels/${ID}/messages/${ID}`,
        );
      }),
    );
    expect(redactPath("/api/v10/channels/1/messages")).toBe("/api/v10/channels/1/messages");
    expect(redactPath("/v1/chat/completions")).toBe("/v1/chat/completions");
    expect(redactPath("/bots/list")).toBe("/bots/list");
  });

  it("keeps the query's keys and drops its values, unless content is captured", () => {
    fc.assert(
      fc.property(fc.dictionary(segment.filter(Boolean), fc.string(), { minKeys: 1 }), (params) => {
        const search = `?${new URLSearchParams(params)}`;
        const redacted = redactQuery(search, false);
        expect([...new URLSearchParams(redacted).keys()]).toEqual(Object.keys(params));
        for (const value of new URLSearchParams(redacted).values()) expect(value).toBe(REDACTED);
        expect(redactQuery(search, true)).toBe(search);
      }),
    );
  });

  it("drops credentials in the URL itself", () => {
    const attributes = redactedUrlAttributes(
      new URL("https://user:pa55@example.com:8443/x?q=1"),
      false,
    );
    expect(attributes["url.full"]).toBe(`https://example.com:8443/x?q=${REDACTED}`);
  });
});
