import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

/**
 * The GFM extensions to parse a text with: all of GFM, less two of its
 * constructs where the text cannot hold what they find. Those two are most
 * of a parse, though answers seldom use them: at every word micromark
 * tries a literal email address (and reads the word twice), and at every
 * line a table (reading the line twice); then a tree transform walks every
 * text node with four regular expressions looking for literal links. Left
 * out where the text could not hold one, the tree is GFM's, the same (a
 * property test in test/unit/markdown-parse.test.ts holds it to GFM's).
 *
 * The constructs are known by name; should a new version rename them,
 * nothing is left out, and only the time is lost.
 */
export function gfmFor(source: string): GfmOptions {
  const links = mayHoldLiteralLink(source);
  const tables = mayHoldTable(source);
  return links ? (tables ? GFM : NO_TABLES) : tables ? NO_LINKS : NO_LINKS_NO_TABLES;
}

/**
 * Whether any text node of `source` may hold a literal link: every one has
 * `@` (an email, `mailto:`, `xmpp:`), `http` or `www`, letters no escape
 * can stand for. A character reference (`&#64;`) can, so `&` counts too.
 */
export function mayHoldLiteralLink(source: string): boolean {
  return LITERAL_LINK_HINT.test(source);
}

/**
 * Whether `source` may hold a table: a table's delimiter row has a `|`, or
 * a column's alignment (`:-`, `-:`); without either it is a thematic break
 * or a heading's underline.
 */
export function mayHoldTable(source: string): boolean {
  return TABLE_HINT.test(source);
}

const LITERAL_LINK_HINT = /[@&]|http|www/i;
const TABLE_HINT = /\||:-|-:/;

/** micromark-extension-gfm-autolink-literal's constructs, by name. */
const LITERAL_LINK_CONSTRUCTS = ["wwwAutolink", "protocolAutolink", "emailAutolink"];
/** micromark-extension-gfm-table's construct. */
const TABLE_CONSTRUCTS = ["table"];

/**
 * GFM's syntax and tree extensions, built once: building them is as costly
 * as parsing a short answer, and a streamed answer is parsed on every edit.
 * Both are stateless tables of constructs and handlers, safe to share.
 */
const GFM = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };
type GfmOptions = typeof GFM;

/** The tree extensions without the literal-link transform, the only transform GFM has. */
const NO_LINK_TRANSFORM = [gfmFromMarkdown().map(({ transforms: _, ...extension }) => extension)];

const NO_TABLES = without(TABLE_CONSTRUCTS, GFM.mdastExtensions);
const NO_LINKS = without(LITERAL_LINK_CONSTRUCTS, NO_LINK_TRANSFORM);
const NO_LINKS_NO_TABLES = without(
  [...LITERAL_LINK_CONSTRUCTS, ...TABLE_CONSTRUCTS],
  NO_LINK_TRANSFORM,
);

/** GFM with the named constructs left out of its syntax, over the given tree extensions. */
function without(names: readonly string[], mdastExtensions: GfmOptions["mdastExtensions"]) {
  const left = new Set(names);
  const extensions = GFM.extensions.map((extension) => ({
    ...extension,
    flow: withoutNamed(extension.flow, left),
    text: withoutNamed(extension.text, left),
  }));
  return { extensions, mdastExtensions };
}

/** A hook's constructs by character code (`"null"`: any), the named ones left out. */
function withoutNamed<R extends Extension["flow"]>(record: R, names: ReadonlySet<string>): R {
  if (record === undefined) return record;
  const kept: Record<string, unknown> = {};
  for (const [code, constructs] of Object.entries(record)) {
    const rest = [constructs ?? []].flat().filter((c) => !names.has(c.name ?? ""));
    if (rest.length > 0) kept[code] = rest;
  }
  return kept as R;
}

/** micromark's syntax extension type, as GFM's is built (micromark-util-types is no dependency of ours). */
type Extension = ReturnType<typeof gfm>;
