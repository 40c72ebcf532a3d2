import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  EnvTemplateError,
  envNamesOf,
  fillEnvTemplate,
  MissingEnvError,
  parseEnvTemplate,
} from "../../src/core/config/env-template.ts";

const WHERE = "header Authorization of MCP server github";

/** Literal text that holds no `${` (a `$` alone is fine). */
const literal = fc.string().filter((text) => !text.includes(`\${`) && !text.endsWith("$"));
const variable = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,15}$/);
const value = fc.string({ minLength: 1 }).filter((text) => text !== "");

describe("env templates", () => {
  it(`fills \${NAME} from the environment and keeps everything else`, () => {
    expect(fillEnvTemplate(`Bearer \${TOKEN}`, { TOKEN: "abc" }, WHERE)).toBe("Bearer abc");
    expect(fillEnvTemplate(`cost: $5, \${A}\${B}`, { A: "x", B: "y" }, WHERE)).toBe("cost: $5, xy");
    expect(fillEnvTemplate(`literal $\${HOME}`, {}, WHERE)).toBe(`literal \${HOME}`);
    expect(envNamesOf(`\${A} and \${B} and \${A}`)).toEqual(["A", "B"]);
  });

  it("names the variable, where it is used, and the fix when it is not set", () => {
    expect(() => fillEnvTemplate(`Bearer \${GITHUB_TOKEN}`, { GITHUB_TOKEN: "" }, WHERE)).toThrow(
      new MissingEnvError("GITHUB_TOKEN", WHERE),
    );
    expect(new MissingEnvError("GITHUB_TOKEN", WHERE).message).toBe(
      `header Authorization of MCP server github uses \${GITHUB_TOKEN}, which is not set. Set GITHUB_TOKEN in the environment of the switchyard process (or write the value without \${...}).`,
    );
  });

  it("refuses a reference that does not close or does not name a variable", () => {
    expect(() => parseEnvTemplate(`Bearer \${TOKEN`)).toThrow(EnvTemplateError);
    expect(() => parseEnvTemplate(`\${1ABC}`)).toThrow(/is not a variable reference/);
    expect(() => parseEnvTemplate(`\${}`)).toThrow(/is not a variable reference/);
  });

  it("fills any mix of text and variables to the text with the values put in", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(literal, variable, value), { maxLength: 5 }),
        literal,
        (pieces, tail) => {
          const env = Object.fromEntries(pieces.map(([, name, v]) => [name, v]));
          const template = pieces.map(([text, name]) => `${text}\${${name}}`).join("") + tail;
          const expected = pieces.map(([text, name]) => `${text}${env[name]}`).join("") + tail;
          expect(fillEnvTemplate(template, env, WHERE)).toBe(expected);
        },
      ),
    );
  });

  it(`leaves a value without \${ exactly as written`, () => {
    fc.assert(
      fc.property(literal, (text) => {
        expect(fillEnvTemplate(text, {}, WHERE)).toBe(text);
      }),
    );
  });

  it("reads any text as parts or as an EnvTemplateError, nothing else", () => {
    const text = fc.oneof(
      fc.string(),
      fc
        .array(fc.constantFrom("$", "{", "}", "$$", `\${`, "A", "_", "1", " "), { maxLength: 12 })
        .map((parts) => parts.join("")),
    );
    fc.assert(
      fc.property(text, (input) => {
        try {
          const parts = parseEnvTemplate(input);
          for (const part of parts) {
            if (part.kind === "env") expect(part.name).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
            else expect(part.text).not.toBe("");
          }
        } catch (error) {
          expect(error).toBeInstanceOf(EnvTemplateError);
        }
      }),
    );
  });
});
