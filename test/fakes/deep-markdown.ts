import fc from "fast-check";

/**
 * Markdown as a model gone wrong writes it, for the properties that
 * formatters and splitters never throw: the usual syntax pieces and
 * arbitrary text (lone surrogates included), between runs of one marker
 * repeated up to thousands of times (`> > > …`, `- - - …`, `1. 1. …`,
 * backticks, brackets, emphasis) and lists nested hundreds of levels deep
 * by indentation (the examples take 400).
 */
const PIECES = [
  "word",
  " ",
  "\n",
  "\n\n",
  "**",
  "*",
  "_",
  "~~",
  "`",
  "```",
  "```ts\n",
  "\n```\n",
  "~~~\n",
  "[",
  "](https://e.com/a?b=1&c=2)",
  "<",
  ">",
  "&",
  "<@U123>",
  "<https://e.com|a label>",
  "# ",
  "- ",
  "1. ",
  "> ",
  "- [x] ",
  "| a | b |\n|---|---|\n| 1 | 2 |\n",
  "---\n",
  "    ",
  "\t",
  "😀",
  "\uD83D",
  "\uDE00",
] as const;

/** Container markers: the parser nests one level per marker. */
const CONTAINER = ["> ", ">", "- ", "* ", "+ ", "1. ", "2) ", "> - ", "- > ", "1. - > "] as const;
/** Inline openers: the parser's cost grows with how many are open at once. */
const INLINE = ["`", "[", "](", "**", "*", "_", "~~", "![", "<", "**a ", "*_"] as const;

const run = (units: readonly string[], most: number) =>
  fc
    .tuple(fc.constantFrom(...units), fc.integer({ min: 1, max: most }))
    .map(([unit, times]) => unit.repeat(times));

/** A list nested `depth` levels by indentation, one item a level, as a model indents it. */
const indentedList = fc
  .tuple(fc.integer({ min: 1, max: 200 }), fc.constantFrom("- ", "1. ", "* "))
  .map(([depth, marker]) =>
    Array.from(
      { length: depth },
      (_, i) => `${" ".repeat(i * marker.length)}${marker}item ${i}`,
    ).join("\n"),
  );

export const deepMarkdown = fc
  .array(
    fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom(...PIECES) },
      { weight: 3, arbitrary: fc.string({ maxLength: 8 }) },
      { weight: 2, arbitrary: run(CONTAINER, 2500) },
      { weight: 1, arbitrary: run(INLINE, 300) },
      { weight: 1, arbitrary: indentedList },
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(""));
