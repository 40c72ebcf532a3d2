/**
 * Splits Telegram HTML into messages that each fit Telegram's limit and each
 * are valid HTML on their own: a cut falls between characters, never inside
 * a tag or an entity (`&amp;` counts as the one character it shows), and the
 * tags open at a cut are closed at the end of one part and reopened, with
 * their attributes, at the start of the next (a `<pre><code
 * class="language-ts">` block cut in two is still a code block twice).
 * Joining the parts' visible text gives back the original's.
 *
 * The limit counts what Telegram counts: the text after entity parsing, in
 * UTF-16 code units (never splitting a surrogate pair), tags excluded.
 *
 * @example
 * splitTelegramHtml("<b>" + "word ".repeat(2000) + "</b>", 4096);
 * // ["<b>word word … </b>", "<b>word … </b>", "<b>… word </b>"]
 */
export function splitTelegramHtml(html: string, max: number): string[] {
  if (!Number.isInteger(max) || max < 16) {
    throw new RangeError(
      `splitTelegramHtml: max must be a whole number of at least 16, got ${max}`,
    );
  }
  // No character shows wider than it is written (a tag shows as nothing, `&amp;` as one): no need to look.
  if (html.length <= max) return [html];
  const atoms = atomize(html);
  if (atoms.reduce((sum, a) => sum + a.width, 0) <= max) return [html];
  const parts: string[] = [];
  let start = 0;
  let stack: Tag[] = [];
  while (start < atoms.length) {
    const { end, after } = nextCut(atoms, start, stack, max);
    const reopen = stack.map((tag) => tag.open).join("");
    const close = [...after]
      .reverse()
      .map((tag) => `</${tag.name}>`)
      .join("");
    parts.push(
      reopen +
        atoms
          .slice(start, end)
          .map((a) => a.text)
          .join("") +
        close,
    );
    start = end;
    stack = after;
  }
  return parts;
}

/** The visible length of Telegram HTML: what Telegram's limit counts. */
export function visibleLength(html: string): number {
  return atomize(html).reduce((sum, atom) => sum + atom.width, 0);
}

/** A tag, or one visible character (or entity) of text. */
interface Atom {
  readonly text: string;
  /** UTF-16 code units it shows as; 0 for a tag. */
  readonly width: number;
  readonly tag?: { readonly name: string; readonly closing: boolean };
}

interface Tag {
  readonly name: string;
  /** The opening tag as written, attributes included, to reopen it. */
  readonly open: string;
}

// A tag's attributes stop at a "<" too: else every "<" that never closes rescans to the end (quadratic).
const TOKEN =
  /<(\/?)([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?>|&(#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[A-Za-z]{2,8});/g;

function atomize(html: string): Atom[] {
  const atoms: Atom[] = [];
  const text = (chunk: string) => {
    for (const char of chunk) atoms.push({ text: char, width: char.length });
  };
  let last = 0;
  for (const match of html.matchAll(TOKEN)) {
    text(html.slice(last, match.index));
    const [whole, slash, name, entity] = match;
    if (name !== undefined) {
      atoms.push({
        text: whole,
        width: 0,
        tag: { name: name.toLowerCase(), closing: slash === "/" },
      });
    } else {
      atoms.push({ text: whole, width: entityWidth(entity ?? "") });
    }
    last = match.index + whole.length;
  }
  text(html.slice(last));
  return atoms;
}

function entityWidth(entity: string): number {
  if (!entity.startsWith("#")) return 1;
  const code = entity[1] === "x" ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
  return code > 0xffff ? 2 : 1;
}

/** Boundaries to cut after, best first, as in splitMessage: paragraph, line, sentence, word. */
const BOUNDARIES = ["\n\n", "\n", ". ", " "] as const;

/**
 * Where the part starting at `start` ends, and the tags open there. The cut
 * goes after the last boundary past half the budget, else where the budget
 * runs out; it skips closing tags (so the next part does not open with an
 * empty element) and backs off opening tags (so this one does not end with
 * one).
 */
function nextCut(
  atoms: readonly Atom[],
  start: number,
  open: readonly Tag[],
  max: number,
): { end: number; after: Tag[] } {
  const best = new Map<string, number>();
  let width = 0;
  let end = atoms.length;
  let previous = "";
  for (let i = start; i < atoms.length; i++) {
    const atom = atoms[i] as Atom;
    if (width + atom.width > max) {
      end = i;
      break;
    }
    width += atom.width;
    if (atom.width > 0) {
      const pair = previous + atom.text;
      if (width > max / 2) {
        for (const boundary of BOUNDARIES) {
          if (pair.endsWith(boundary)) best.set(boundary, i + 1);
        }
      }
      previous = atom.text;
    }
  }
  if (end < atoms.length) {
    const boundary = BOUNDARIES.find((b) => best.has(b));
    if (boundary !== undefined) end = best.get(boundary) as number;
  }
  while (end < atoms.length && atoms[end]?.tag?.closing) end++;
  while (end > start + 1 && atoms[end - 1]?.tag && !atoms[end - 1]?.tag?.closing) end--;
  return { end, after: stackAfter(atoms, start, end, open) };
}

function stackAfter(
  atoms: readonly Atom[],
  start: number,
  end: number,
  open: readonly Tag[],
): Tag[] {
  const stack = [...open];
  for (let i = start; i < end; i++) {
    const atom = atoms[i] as Atom;
    if (!atom.tag) continue;
    if (atom.tag.closing) {
      // From the top: a closing tag almost always closes the innermost one.
      let at = stack.length - 1;
      while (at >= 0 && stack[at]?.name !== atom.tag.name) at--;
      if (at >= 0) stack.splice(at, 1);
    } else {
      stack.push({ name: atom.tag.name, open: atom.text });
    }
  }
  return stack;
}

/**
 * Whether Telegram would show anything but whitespace for some HTML: what
 * `/\S/.test(visibleText(html))` says, without taking the HTML apart
 * character by character when no entity is in it.
 */
export function showsText(html: string): boolean {
  const text = html.replace(TAG, "");
  return text.includes("&") ? /\S/.test(visibleText(html)) : /\S/.test(text);
}

/** A tag, as {@link TOKEN} reads one. */
const TAG = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?>/g;

/** The text Telegram shows for some HTML: tags dropped, entities decoded. */
export function visibleText(html: string): string {
  return atomize(html)
    .filter((atom) => atom.tag === undefined)
    .map((atom) =>
      atom.text.startsWith("&") && atom.text.length > 1 ? decode(atom.text) : atom.text,
    )
    .join("");
}

const NAMED: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"' };

function decode(entity: string): string {
  const name = entity.slice(1, -1);
  if (!name.startsWith("#")) return NAMED[name] ?? entity;
  const code = name[1] === "x" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
}
