/**
 * A file a tool made for the person (a chart, a report): its name and its
 * bytes. The worker sniffs the real type from the bytes; `type` is only what
 * the tool says it is, kept for text files, which have no signature.
 */
export interface ToolFile {
  /** The file name people see, e.g. "report.pdf". */
  readonly name: string;
  readonly bytes: Uint8Array;
  /** What the tool says the file is (`text/csv`); the bytes decide when they say something. */
  readonly type?: string;
}

/**
 * A tool result with files: `text` is what the model reads, `files` go out
 * with the answer, after its text, once. The model's copy of the result says
 * which files will be sent (or why one was refused); the bytes never enter
 * history.
 */
export interface ToolResult {
  readonly text: string;
  readonly files: readonly ToolFile[];
}

/** What a tool returns: text for the model, or text and files ({@link toolResult}). */
export type ToolOutput = string | ToolResult;

/** A tool result that is not one: the message says what was wrong and how to build one. */
export class ToolResultError extends Error {
  override readonly name = "ToolResultError";
}

/**
 * A result of text and files, checked: every file has a name and bytes.
 *
 * @example
 * const chart = defineTool({
 *   id: "sales_chart",
 *   description: "Draws this month's sales as a PNG chart.",
 *   parameters: z.object({}),
 *   execute: async () =>
 *     toolResult("Here is the chart of December's sales.", [
 *       { name: "sales.png", bytes: await drawChart() },
 *     ]),
 * });
 */
export function toolResult(text: string, files: readonly ToolFile[] = []): ToolResult {
  if (typeof text !== "string") {
    throw new ToolResultError(
      `toolResult takes the text for the model first, found ${typeof text}. Pass a sentence saying what the files are, e.g. toolResult("The chart is attached.", [file]).`,
    );
  }
  const checked = files.map((file, i) => {
    if (typeof file?.name !== "string" || file.name.trim() === "") {
      throw new ToolResultError(
        `File ${i + 1} of the tool result has no name. Give each file the name people see, e.g. { name: "report.pdf", bytes }.`,
      );
    }
    if (!(file.bytes instanceof Uint8Array)) {
      throw new ToolResultError(
        `File "${file.name}" of the tool result has no bytes. Pass them as a Uint8Array or a Buffer, e.g. { name: "${file.name}", bytes: await readFile(path) }.`,
      );
    }
    return Object.freeze({
      name: file.name,
      bytes: file.bytes,
      ...(file.type !== undefined ? { type: file.type } : {}),
    });
  });
  return Object.freeze({ text, files: Object.freeze(checked) });
}

/** Whether a tool's output carries files (anything but a string is taken as a {@link ToolResult}). */
export function isToolResult(output: unknown): output is ToolResult {
  return (
    typeof output === "object" &&
    output !== null &&
    typeof (output as ToolResult).text === "string" &&
    Array.isArray((output as ToolResult).files)
  );
}
