import fc from "fast-check";

/**
 * Markdown as a model writes it, for the Telegram formatting properties: the
 * syntax pieces in any order with arbitrary text between, so the odd
 * combinations (a fence inside a list, a link label with code, `&` before an
 * entity name) come up.
 */
export const markdownArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "**",
        "*",
        "_",
        "__",
        "~~",
        "`",
        "```",
        "```ts\n",
        "\n```\n",
        "[",
        "](",
        ")",
        "https://example.com/a?b=1&c=2",
        "javascript:alert(1)",
        "<b>",
        "</i>",
        "<",
        ">",
        "&",
        "&amp;",
        "&#128512;",
        '"',
        "\n",
        "\n\n",
        "# ",
        "## ",
        "- ",
        "1. ",
        "- [x] ",
        "> ",
        "> > ",
        "| a | b |\n|---|---|\n| 1 | 2 |\n",
        "---\n",
        "    ",
        "![alt](https://x.y/i.png)",
        "[^1]",
        "\n[^1]: note\n",
        "😀",
        "||",
      ),
      fc.string({ maxLength: 8 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(""));
