/**
 * The catalog: the deferred tools' names as the system prompt lists them.
 * One name per line, except that an MCP server's tools share one line with
 * their prefix written once: `mcp__github__{create_issue,list_issues}`. A
 * server with dozens of tools would otherwise repeat `mcp__github__` dozens
 * of times, and in the discover mode the catalog is most of what is sent.
 *
 * Built from the sorted deferred list only, so the same tools give the same
 * bytes (rule 2); `tool_search` takes a braced line as it is written.
 */
export function renderCatalog(deferred: readonly string[]): string {
  const lines: string[] = [];
  let i = 0;
  while (i < deferred.length) {
    const id = deferred[i] as string;
    const prefix = mcpPrefix(id);
    let j = i + 1;
    if (prefix !== undefined) {
      while (j < deferred.length && (deferred[j] as string).startsWith(prefix)) j++;
    }
    if (prefix !== undefined && j - i > 1) {
      const rest = deferred.slice(i, j).map((name) => name.slice(prefix.length));
      lines.push(`${prefix}{${rest.join(",")}}`);
    } else {
      lines.push(id);
    }
    i = j;
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

/**
 * A name as the model may copy it from the catalog: a plain id, or a braced
 * line (`mcp__fs__{read_file,write_file}`) standing for each of its ids.
 */
export function expandCatalogName(name: string): string[] {
  const braced = /^([^{}]*)\{([^{}]*)\}$/.exec(name.trim());
  if (!braced) return [name.trim()];
  const [, prefix, rest] = braced as unknown as [string, string, string];
  return rest
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => `${prefix}${part}`);
}

/** `mcp__<server>__` for an MCP tool's id (server names never contain `__`). */
function mcpPrefix(id: string): string | undefined {
  if (!id.startsWith("mcp__")) return undefined;
  const end = id.indexOf("__", 5);
  return end > 5 && end + 2 < id.length ? id.slice(0, end + 2) : undefined;
}
