/** The filesystem MCP server's tools, with schemas shaped like its real `tools/list` answer. */
import type { AnyTool, JsonSchema } from "../../src/core/tools/tool.ts";
import { inputSchema, mcpTool, num, str } from "./mcp-schema.ts";

const FS_PATH = str("Absolute path, or a path relative to an allowed directory");
const EXCLUDE_PATTERNS: JsonSchema = {
  type: "array",
  items: { type: "string" },
  default: [],
  description: "Glob patterns of paths to skip, e.g. ['node_modules', '**/*.log']",
};

export function filesystemMcpTools(): AnyTool[] {
  const fs = (name: string, description: string, schema: JsonSchema, result: string) =>
    mcpTool("filesystem", name, description, schema, result);
  return [
    fs(
      "read_file",
      "Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to examine the contents of a single file. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. Only works within allowed directories.",
      inputSchema(
        {
          path: FS_PATH,
          tail: num("If provided, returns only the last N lines of the file"),
          head: num("If provided, returns only the first N lines of the file"),
        },
        ["path"],
      ),
      "# Notes\n\n- ship 2.4 on Tuesday\n",
    ),
    fs(
      "read_media_file",
      "Read an image or audio file. Returns the base64 encoded data and MIME type. Only works within allowed directories.",
      inputSchema({ path: FS_PATH }, ["path"]),
      '{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}',
    ),
    fs(
      "read_multiple_files",
      "Read the contents of multiple files simultaneously. This is more efficient than reading files one by one when you need to analyze or compare multiple files. Each file's content is returned with its path as a reference. Failed reads for individual files won't stop the entire operation. Only works within allowed directories.",
      inputSchema(
        {
          paths: {
            type: "array",
            items: { type: "string" },
            minItems: 1,
            description:
              "Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories.",
          },
        },
        ["paths"],
      ),
      "notes.md:\n# Notes\n\n---\ntodo.txt:\n- review PR 418\n",
    ),
    fs(
      "write_file",
      "Create a new file or completely overwrite an existing file with new content. Use with caution as it will overwrite existing files without warning. Handles text content with proper encoding. Only works within allowed directories.",
      inputSchema({ path: FS_PATH, content: str("Full text content to write") }, [
        "path",
        "content",
      ]),
      "Successfully wrote to notes.md",
    ),
    fs(
      "edit_file",
      "Make line-based edits to a text file. Each edit replaces exact line sequences with new content. Returns a git-style diff showing the changes made. Only works within allowed directories.",
      inputSchema(
        {
          path: FS_PATH,
          edits: {
            type: "array",
            items: {
              type: "object",
              properties: {
                oldText: str("Text to search for - must match exactly"),
                newText: str("Text to replace with"),
              },
              required: ["oldText", "newText"],
              additionalProperties: false,
            },
            description: "Edits to apply in order",
          },
          dryRun: {
            type: "boolean",
            default: false,
            description: "Preview changes using git-style diff format",
          },
        },
        ["path", "edits"],
      ),
      "```diff\n-ship 2.4 on Tuesday\n+ship 2.4 on Wednesday\n```",
    ),
    fs(
      "create_directory",
      "Create a new directory or ensure a directory exists. Can create multiple nested directories in one operation. If the directory already exists, this operation will succeed silently. Perfect for setting up directory structures for projects or ensuring required paths exist. Only works within allowed directories.",
      inputSchema({ path: FS_PATH }, ["path"]),
      "Successfully created directory reports/2025",
    ),
    fs(
      "list_directory",
      "Get a detailed listing of all files and directories in a specified path. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. This tool is essential for understanding directory structure and finding specific files within a directory. Only works within allowed directories.",
      inputSchema({ path: FS_PATH }, ["path"]),
      "[DIR] reports\n[FILE] notes.md\n[FILE] todo.txt",
    ),
    fs(
      "list_directory_with_sizes",
      "Get a detailed listing of all files and directories in a specified path, including sizes. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. This tool is useful for understanding directory structure and finding specific files within a directory. Only works within allowed directories.",
      inputSchema(
        {
          path: FS_PATH,
          sortBy: {
            type: "string",
            enum: ["name", "size"],
            default: "name",
            description: "Sort entries by name or size",
          },
        },
        ["path"],
      ),
      "[DIR] reports\n[FILE] notes.md      1.20 KB\n\nTotal: 1 files, 1 directories",
    ),
    fs(
      "directory_tree",
      "Get a recursive tree view of files and directories as a JSON structure. Each entry includes 'name', 'type' (file/directory), and 'children' for directories. Files have no children array, while directories always have a children array (which may be empty). The output is formatted with 2-space indentation for readability. Only works within allowed directories.",
      inputSchema({ path: FS_PATH, excludePatterns: EXCLUDE_PATTERNS }, ["path"]),
      '[{"name":"reports","type":"directory","children":[]},{"name":"notes.md","type":"file"}]',
    ),
    fs(
      "move_file",
      "Move or rename files and directories. Can move files between directories and rename them in a single operation. If the destination exists, the operation will fail. Works across different directories and can be used for simple renaming within the same directory. Both source and destination must be within allowed directories.",
      inputSchema({ source: str("Path to move from"), destination: str("Path to move to") }, [
        "source",
        "destination",
      ]),
      "Successfully moved notes.md to reports/notes.md",
    ),
    fs(
      "search_files",
      "Recursively search for files and directories matching a pattern. The patterns should be glob-style patterns that match paths relative to the working directory. Use pattern like '*.ext' to match files in current directory, and '**/*.ext' to match files in all subdirectories. Returns full paths to all matching items. Great for finding files when you don't know their exact location. Only searches within allowed directories.",
      inputSchema(
        {
          path: FS_PATH,
          pattern: str("Glob pattern to match, e.g. '**/*.md'"),
          excludePatterns: EXCLUDE_PATTERNS,
        },
        ["path", "pattern"],
      ),
      "/data/reports/q1.md\n/data/reports/q2.md",
    ),
    fs(
      "get_file_info",
      "Retrieve detailed metadata about a file or directory. Returns comprehensive information including size, creation time, last modified time, permissions, and type. This tool is perfect for understanding file characteristics without reading the actual content. Only works within allowed directories.",
      inputSchema({ path: FS_PATH }, ["path"]),
      "size: 1234\ncreated: 2025-01-02T10:00:00.000Z\nmodified: 2025-03-01T08:00:00.000Z\nisFile: true\npermissions: 644",
    ),
    fs(
      "list_allowed_directories",
      "Returns the list of directories that this server is allowed to access. Subdirectories within these allowed directories are also accessible. Use this to understand which directories and their nested paths are available before trying to access files.",
      inputSchema({}),
      "Allowed directories:\n/data",
    ),
  ];
}
