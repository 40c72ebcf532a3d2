import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseMultipart } from "../../src/testing/fakes/multipart.ts";

/** A form as fetch encodes it (the body undici, and so discord.js, sends). */
async function encode(fields: [string, string][], files: { name: string; bytes: Uint8Array }[]) {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  for (const [i, file] of files.entries()) {
    form.append(`files[${i}]`, new Blob([file.bytes]), file.name);
  }
  const request = new Request("http://fake/", { method: "POST", body: form });
  return {
    contentType: request.headers.get("content-type") as string,
    body: Buffer.from(await request.arrayBuffer()),
  };
}

const name = fc.stringMatching(/^[a-z_]{1,12}$/);
const fileName = fc.string({ minLength: 1, maxLength: 30 }).filter((n) => !/["\\\r\n%]/.test(n));

describe("the fakes' multipart parser", () => {
  it("gives back every field and file fetch encoded, bytes intact, the last field of a name winning", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(name, fc.string()), { maxLength: 5 }),
        fc.array(fc.record({ name: fileName, bytes: fc.uint8Array({ maxLength: 2000 }) }), {
          maxLength: 3,
        }),
        async (fields, files) => {
          const { contentType, body } = await encode(fields, files);
          const form = await parseMultipart(contentType, body);
          expect(form.fields).toEqual(Object.fromEntries(fields));
          expect(form.files.map((f) => [f.field, f.filename, Buffer.from(f.bytes)])).toEqual(
            files.map((f, i) => [`files[${i}]`, f.name, Buffer.from(f.bytes)]),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it("keeps a field named __proto__ as a field (the property above found it dropped)", async () => {
    const { contentType, body } = await encode(
      [
        ["__proto__", "polluted?"],
        ["text", "hello"],
      ],
      [],
    );
    const form = await parseMultipart(contentType, body);
    expect(Object.entries(form.fields)).toEqual([
      ["__proto__", "polluted?"],
      ["text", "hello"],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("rejects a body cut short, or one without a boundary, naming the problem", async () => {
    const { contentType, body } = await encode([["a", "b"]], []);
    await expect(parseMultipart(contentType, body.subarray(0, body.length - 10))).rejects.toThrow(
      /cut short/,
    );
    await expect(parseMultipart("multipart/form-data;", body)).rejects.toThrow(
      /not a multipart body/,
    );
  });
});
