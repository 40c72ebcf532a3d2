import { existsSync, readFileSync } from "node:fs";
import { defineConfig } from "vitepress";

/**
 * The docs site: `npm run docs` (TypeDoc into docs/api/, then `vitepress build docs`),
 * `npm run docs:dev` to browse it locally. The sidebar goes by audience, in the order a
 * newcomer needs them: starting, a platform, the tools, the config, running it, extending
 * it, and how it works inside.
 */

/** TypeDoc writes the API reference's sidebar beside its pages (typedoc-vitepress-theme). */
const apiSidebarFile = new URL("../api/typedoc-sidebar.json", import.meta.url);
const apiSidebar = existsSync(apiSidebarFile)
  ? (JSON.parse(readFileSync(apiSidebarFile, "utf8")) as { text: string; link?: string }[])
  : [];

export default defineConfig({
  title: "Switchyard",
  description:
    "Run LLM agents as Slack, Discord and Telegram bots, with tool availability done right.",
  cleanUrls: true,
  lastUpdated: false,
  // Examples point at local servers (a Jaeger on localhost:16686): not pages to check.
  ignoreDeadLinks: "localhostLinks",
  themeConfig: {
    search: { provider: "local" },
    nav: [
      { text: "Quickstart", link: "/start/quickstart" },
      { text: "Config", link: "/config/file" },
      { text: "API", link: "/api/" },
    ],
    sidebar: [
      {
        text: "Start",
        items: [
          { text: "Quickstart", link: "/start/quickstart" },
          { text: "Pointing it at a model", link: "/start/model" },
        ],
      },
      {
        text: "Platforms",
        items: [
          { text: "Slack", link: "/platforms/slack" },
          { text: "Discord", link: "/platforms/discord" },
          { text: "Telegram", link: "/platforms/telegram" },
          { text: "Access and limits", link: "/platforms/access-and-limits" },
        ],
      },
      {
        text: "Tools and scopes",
        items: [
          { text: "Who decides what the model sees", link: "/tools/scopes" },
          { text: "Approvals", link: "/tools/approvals" },
          { text: "Skills", link: "/tools/skills" },
          { text: "Chat commands", link: "/tools/chat-commands" },
          { text: "/tools in chat", link: "/tools/tools-command" },
          { text: "switchyard tools", link: "/tools/cli" },
          { text: "Built-in tools", link: "/tools/built-in" },
          { text: "Attachments", link: "/tools/attachments" },
          { text: "MCP servers", link: "/tools/mcp" },
        ],
      },
      {
        text: "Config reference",
        items: [
          { text: "The config file", link: "/config/file" },
          { text: "Models and token budgets", link: "/config/models" },
          { text: "Agents", link: "/config/agents" },
          { text: "Environment variables", link: "/config/environment" },
        ],
      },
      {
        text: "Operate",
        items: [
          { text: "Deploying", link: "/operate/deploying" },
          { text: "Shutdown and failures", link: "/operate/failures" },
          { text: "Metrics, logs and traces", link: "/operate/observability" },
          { text: "The operator console", link: "/operate/console" },
          { text: "Schedules", link: "/operate/schedules" },
          { text: "Hooks", link: "/operate/hooks" },
          { text: "Outgrowing one Redis", link: "/operate/redis" },
        ],
      },
      {
        text: "Extend",
        items: [
          { text: "Use it as a library", link: "/extend/library" },
          { text: "Writing a tool", link: "/extend/writing-a-tool" },
          { text: "Testing your bot", link: "/extend/testing" },
          { text: "Writing a fourth platform", link: "/extend/fourth-platform" },
          { text: "API reference", link: "/api/", collapsed: true, items: apiSidebar },
        ],
      },
      {
        text: "Internals",
        items: [
          { text: "How a message becomes an answer", link: "/internals/message-flow" },
          { text: "Why the tool bytes are deterministic", link: "/internals/tool-bytes" },
          { text: "Development", link: "/internals/development" },
          { text: "Performance", link: "/internals/performance" },
          { text: "Layout", link: "/internals/layout" },
        ],
      },
    ],
    outline: { level: [2, 3] },
  },
});
