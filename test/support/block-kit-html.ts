/**
 * Block Kit as a browser draws it, near enough to Slack's own look for a
 * screenshot of what the bot posts: a message (the bot's name, an APP tag)
 * with its section blocks' mrkdwn and its actions blocks' buttons. Only
 * what the channel sends is drawn (section, context, actions with buttons);
 * the mrkdwn is the channel's output, whose `&`, `<` and `>` are escaped
 * already, so only Slack's own `<…>` tokens, code, bold, italic and strike
 * are turned into HTML.
 */

interface Text {
  readonly text: string;
}
interface Button {
  readonly type: string;
  readonly text: Text;
  readonly style?: "primary" | "danger";
}
interface Block {
  readonly type: string;
  readonly text?: Text;
  readonly elements?: readonly (Button | Text)[];
}

const STYLE = `
  body { margin: 0; background: #fff; font: 15px/1.47 -apple-system, "Segoe UI", Lato, "Helvetica Neue", Arial, sans-serif; color: #1d1c1d; }
  .message { display: flex; gap: 8px; padding: 16px 20px; max-width: 760px; }
  .avatar { width: 36px; height: 36px; border-radius: 6px; background: #4a154b; color: #fff; font-weight: 700; display: flex; align-items: center; justify-content: center; flex: none; }
  .who { font-weight: 900; } .app { background: #e8e8e8; color: #616061; font-size: 10px; font-weight: 700; padding: 1px 3px; border-radius: 2px; margin-left: 4px; vertical-align: 2px; }
  .when { color: #616061; font-size: 12px; margin-left: 6px; }
  .section { margin: 4px 0; white-space: normal; }
  code { font: 12px Monaco, Menlo, Consolas, monospace; color: #e01e5a; background: #f6f6f6; border: 1px solid #e0e0e0; border-radius: 3px; padding: 1px 3px; }
  pre { font: 12px/1.5 Monaco, Menlo, Consolas, monospace; background: #f8f8f8; border: 1px solid #e0e0e0; border-radius: 4px; padding: 8px; white-space: pre-wrap; }
  a { color: #1264a3; text-decoration: none; }
  .actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; }
  .button { font-weight: 700; font-size: 13px; padding: 0 12px; height: 28px; border-radius: 4px; border: 1px solid #bbbabb; background: #fff; color: #1d1c1d; }
  .primary { background: #007a5a; border-color: #007a5a; color: #fff; }
  .danger { background: #e01e5a; border-color: #e01e5a; color: #fff; }
  .context { color: #616061; font-size: 12px; margin-top: 4px; }
`;

/** A whole page: one message from `bot` holding `blocks`. */
export function blockKitPage(bot: string, blocks: readonly unknown[]): string {
  const body = (blocks as Block[]).map(block).join("\n");
  return `<!doctype html><html><head><meta charset="utf-8"><style>${STYLE}</style></head><body>
<div class="message"><div class="avatar">${escapeHtml(bot.slice(0, 1).toUpperCase())}</div><div>
<div><span class="who">${escapeHtml(bot)}</span><span class="app">APP</span><span class="when">12:03 PM</span></div>
${body}
</div></div></body></html>`;
}

function block(b: Block): string {
  if (b.type === "section" && b.text) return `<div class="section">${mrkdwn(b.text.text)}</div>`;
  if (b.type === "context") {
    const parts = (b.elements ?? []).map((e) => mrkdwn((e as Text).text));
    return `<div class="context">${parts.join(" ")}</div>`;
  }
  if (b.type === "actions") {
    const buttons = (b.elements ?? []).map((e) => {
      const button = e as Button;
      return `<button class="button ${button.style ?? ""}">${escapeHtml(button.text.text)}</button>`;
    });
    return `<div class="actions">${buttons.join("")}</div>`;
  }
  return "";
}

/** Slack mrkdwn (already entity-escaped by the channel) as HTML. */
export function mrkdwn(text: string): string {
  const codes: string[] = [];
  const keep = (html: string) => `\uE010${codes.push(html) - 1}\uE011`;
  let html = text
    .replace(/```\n?([\s\S]*?)\n?```/g, (_, code: string) => keep(`<pre>${code}</pre>`))
    .replace(/`([^`\n]+)`/g, (_, code: string) => keep(`<code>${code}</code>`))
    .replace(/<(https?:[^|>]+)\|([^>]+)>/g, (_, url: string, label: string) =>
      keep(`<a href="${url}">${label}</a>`),
    )
    .replace(/<(https?:[^>]+)>/g, (_, url: string) => keep(`<a href="${url}">${url}</a>`))
    .replace(/<@([A-Z0-9]+)>/g, (_, id: string) => keep(`<a>@${id}</a>`));
  html = html
    .replace(/(^|[\s(])\*([^*\n]+)\*/g, "$1<b>$2</b>")
    .replace(/(^|[\s(])_([^_\n]+)_/g, "$1<i>$2</i>")
    .replace(/(^|[\s(])~([^~\n]+)~/g, "$1<s>$2</s>")
    .replace(/\n/g, "<br>");
  // Private-use characters mark the slots; a request's text has none.
  return html.replace(/\uE010(\d+)\uE011/g, (_, i: string) => codes[Number(i)] as string);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
