/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** A tagged template whose interpolations are escaped, except values already made by `html`. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = string | number | boolean | Html | undefined | null | readonly Part[];

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return "";
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join("");
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? "";
  for (const [i, part] of parts.entries()) out += render(part) + (strings[i + 1] ?? "");
  return new Html(out);
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{background:#1d232a;color:#fff;padding:10px 20px;display:flex;gap:20px;align-items:center}
header a{color:#cfe3ff;text-decoration:none}header strong{margin-right:12px}
main{padding:16px 20px;max-width:1100px}
table{border-collapse:collapse;width:100%;background:#fff;margin:8px 0 20px}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #e3e6ea;vertical-align:top}
th{background:#eef1f4;font-weight:600}code{font:12px ui-monospace,monospace}
.hash{font:13px ui-monospace,monospace;background:#fff3c4;padding:2px 6px;border-radius:3px}
.muted{color:#66707a}.bad{color:#a4262c}.ok{color:#1e7b34}
h1{font-size:20px}h2{font-size:16px;margin-top:24px}`;

/** The page around every console view. */
export function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · Switchyard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${new Html(STYLE)}</style></head>
<body><header><strong>Switchyard</strong>
<a href="/console">Conversations</a><a href="/console/usage">Usage and limits</a><a href="/console/schedules">Schedules</a><a href="/console/mcp">MCP servers</a><a href="/console/queues">Queues</a></header>
<main><h1>${title}</h1>${body}</main></body></html>`.text;
}
