/**
 * A realistic registry for benchmarks, tests and `switchyard tools --registry demo`.
 *
 * `demoTools()` is what a well-equipped chat bot carries: a few dozen built-in
 * tools with the long descriptions and detailed parameters real ones have, plus
 * two MCP servers (GitHub and filesystem) whose JSON Schemas follow the real
 * servers' `tools/list` answers. `syntheticTools(n)` scales the same shapes to
 * registries of hundreds or thousands of tools.
 *
 * Nothing here does I/O: every `execute` returns a fixed, plausible string, so
 * a test that runs a tool gets the same answer every time.
 */
import { z } from "zod";
import {
  type AnyTool,
  defineJsonSchemaTool,
  defineTool,
  type JsonSchema,
} from "../src/core/tools/tool.ts";

/** Whether the host has a capability, and if not, what a person is told. */
export type CapabilityStatus = { available: true } | { available: false; reason: string };

/** The host the demo registry pretends to run on: most capabilities present, a few missing. */
export const DEMO_CAPABILITIES: Readonly<Record<string, CapabilityStatus>> = Object.freeze({
  web_search_provider: { available: true },
  network: { available: true },
  weather_api: { available: true },
  calendar: { available: true },
  database: { available: true },
  jira: { available: true },
  github_token: { available: true },
  document_parser: { available: true },
  image_model: { available: true },
  sandbox: { available: false, reason: "no code sandbox configured" },
  vision_model: { available: false, reason: "the configured model has no vision support" },
});

/** A fresh array of the demo tools: built-ins, then the GitHub and filesystem MCP servers. */
export function demoTools(): AnyTool[] {
  return [...builtinTools(), ...githubMcpTools(), ...filesystemMcpTools()];
}

// ---------------------------------------------------------------------------
// Built-in tools
// ---------------------------------------------------------------------------

const IANA_ZONE = z
  .string()
  .describe(
    'An IANA time zone name such as "Europe/Paris" or "America/New_York". Use the user\'s time zone from their profile when they do not name one.',
  );

const ISO_DATETIME = z
  .string()
  .describe(
    'An ISO 8601 date-time with offset, e.g. "2025-03-14T09:30:00+01:00". Resolve relative times ("tomorrow at 9") against current_time first.',
  );

function builtinTools(): AnyTool[] {
  return [
    defineTool({
      id: "current_time",
      description:
        "Get the current date and time. Call this before answering anything that depends on today's date, the day of the week, or how long ago or until something is, and before turning a relative time like 'next Friday' into a date for another tool.",
      parameters: z.object({
        timeZone: IANA_ZONE.optional(),
        format: z
          .enum(["iso", "human"])
          .default("human")
          .describe(
            '"iso" for an ISO 8601 timestamp, "human" for a readable sentence like "Friday 14 March 2025, 09:30 CET".',
          ),
      }),
      execute: ({ timeZone }) => `Friday 14 March 2025, 09:30 (${timeZone ?? "UTC"})`,
    }),

    defineTool({
      id: "web_search",
      description:
        "Search the web and return the top results with titles, URLs and snippets. Use it for recent events, facts you are unsure of, prices, documentation, or anything that may have changed since your training data. Prefer several focused queries over one vague one, and cite the URLs you rely on in your answer. Do not use it for questions about this conversation or workspace.",
      capability: "web_search_provider",
      parameters: z.object({
        query: z
          .string()
          .min(1)
          .max(400)
          .describe(
            "The search query, written like a person would type it into a search engine. Include distinguishing terms (product names, versions, years).",
          ),
        count: z
          .number()
          .int()
          .min(1)
          .max(20)
          .default(5)
          .describe("How many results to return, 1 to 20."),
        freshness: z
          .enum(["any", "day", "week", "month", "year"])
          .default("any")
          .describe("Only return pages published within this period."),
        site: z
          .string()
          .optional()
          .describe('Restrict results to one domain, e.g. "docs.python.org".'),
        safeSearch: z
          .enum(["off", "moderate", "strict"])
          .default("moderate")
          .describe("Filtering of adult content."),
        region: z
          .string()
          .optional()
          .describe('A market code such as "en-US" or "de-DE" that biases results to a region.'),
      }),
      execute: ({ query }) =>
        `1. ${query} - Overview (https://example.org/overview)\n2. ${query} explained (https://example.com/explained)`,
    }),

    defineTool({
      id: "fetch_url",
      description:
        "Download a web page or text document and return its readable content as Markdown, with navigation, ads and scripts removed. Use it to read a URL the user shared or a search result in full. Large pages are truncated; use startIndex to read further. Only http and https URLs are allowed, and private network addresses are refused.",
      capability: "network",
      parameters: z.object({
        url: z.string().describe("The absolute http(s) URL to fetch."),
        maxLength: z
          .number()
          .int()
          .min(500)
          .max(100000)
          .default(8000)
          .describe("Maximum number of characters to return."),
        startIndex: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe(
            "Character offset to start from; use the value the previous call reported to continue a truncated page.",
          ),
        raw: z
          .boolean()
          .default(false)
          .describe("Return the raw HTML or text instead of the simplified Markdown."),
      }),
      execute: ({ url }) => `# Example page\n\nContent of ${url} (truncated at 8000 characters).`,
    }),

    defineTool({
      id: "remember",
      description:
        "Save a fact about the user or the team to long-term memory so it can be recalled in later conversations. Use it when someone states a lasting preference, a decision, or a fact they will expect you to know next time ('I'm vegetarian', 'we deploy on Tuesdays'). Do not store secrets, passwords or one-off details.",
      parameters: z.object({
        content: z
          .string()
          .min(1)
          .max(2000)
          .describe("The fact to remember, written as a standalone sentence."),
        scope: z
          .enum(["user", "channel", "workspace"])
          .default("user")
          .describe(
            "Who the memory belongs to: only this user, everyone in this channel, or the whole workspace.",
          ),
        tags: z
          .array(z.string().max(40))
          .max(10)
          .optional()
          .describe('Short topic tags that help recall, e.g. ["food", "allergies"].'),
        expiresInDays: z
          .number()
          .int()
          .min(1)
          .max(3650)
          .optional()
          .describe("Forget the memory automatically after this many days."),
      }),
      execute: ({ scope }) => `Saved to ${scope} memory as mem_7f3a.`,
    }),

    defineTool({
      id: "recall",
      description:
        "Search long-term memory for facts saved earlier with remember. Call it at the start of a conversation when context about the user would help, or whenever the user refers to something 'you should know'. Returns matching memories with their ids, scopes and dates.",
      parameters: z.object({
        query: z
          .string()
          .describe("What to look for, in natural language; matching is semantic, not exact."),
        scope: z
          .enum(["user", "channel", "workspace", "all"])
          .default("all")
          .describe("Which memories to search."),
        tags: z
          .array(z.string())
          .optional()
          .describe("Only return memories with all of these tags."),
        limit: z.number().int().min(1).max(50).default(10).describe("Maximum memories to return."),
      }),
      execute: ({ query }) =>
        `mem_7f3a (user, 2025-02-02): Prefers short answers. [query: ${query}]`,
    }),

    defineTool({
      id: "forget",
      description:
        "Delete memories saved earlier, by id or by a description of what to forget. Use it when the user asks you to forget something or says a remembered fact is no longer true. Confirm with the user before deleting more than one memory.",
      parameters: z.object({
        memoryIds: z
          .array(z.string())
          .optional()
          .describe('Ids returned by recall, e.g. ["mem_7f3a"].'),
        matching: z
          .string()
          .optional()
          .describe(
            "Forget every memory matching this description; use only when no ids are known.",
          ),
        scope: z
          .enum(["user", "channel", "workspace"])
          .default("user")
          .describe("Where to delete."),
      }),
      execute: ({ memoryIds }) => `Forgot ${memoryIds?.length ?? 1} memory.`,
    }),

    defineTool({
      id: "set_reminder",
      description:
        "Schedule a reminder that the bot posts at a given time, once or repeatedly. Use it when someone says 'remind me', 'ping the team every Monday', or asks you to follow up later. Resolve relative times with current_time first, and confirm the exact time and time zone in your reply.",
      parameters: z.object({
        text: z.string().min(1).max(1000).describe("What the reminder says when it fires."),
        at: ISO_DATETIME,
        timeZone: IANA_ZONE.optional(),
        recurrence: z
          .enum(["none", "daily", "weekdays", "weekly", "monthly", "yearly"])
          .default("none")
          .describe("Repeat the reminder on this schedule, starting at `at`."),
        target: z
          .enum(["me", "channel", "thread"])
          .default("me")
          .describe(
            "Where to post: a direct message to the requester, this channel, or this thread.",
          ),
        mention: z
          .array(z.string())
          .optional()
          .describe("User ids to mention when the reminder fires."),
      }),
      execute: ({ at, recurrence }) => `Reminder rem_0193 set for ${at} (${recurrence}).`,
    }),

    defineTool({
      id: "list_reminders",
      description:
        "List the reminders that are scheduled in this conversation or for the current user, with their ids, next firing time and recurrence.",
      parameters: z.object({
        scope: z
          .enum(["mine", "channel", "all"])
          .default("mine")
          .describe("Reminders the user created, the ones in this channel, or all they can see."),
        includePast: z
          .boolean()
          .default(false)
          .describe("Also list one-off reminders that have already fired."),
      }),
      execute: () => "rem_0193 - 2025-03-17T09:00:00+01:00 weekly - Stand-up notes",
    }),

    defineTool({
      id: "cancel_reminder",
      description:
        "Cancel a scheduled reminder by id (from list_reminders). Cancelling a recurring reminder stops every future occurrence unless onlyNext is set.",
      parameters: z.object({
        reminderId: z.string().describe('The reminder id, e.g. "rem_0193".'),
        onlyNext: z
          .boolean()
          .default(false)
          .describe("For a recurring reminder, skip only the next occurrence."),
      }),
      execute: ({ reminderId }) => `Cancelled ${reminderId}.`,
    }),

    defineTool({
      id: "send_message",
      description:
        "Post a message to another channel, thread or person on this platform, on the user's behalf. Use it only when the user explicitly asks you to send or forward something; never to reply in the current conversation (just answer normally). The message is posted as the bot and names who asked for it.",
      parameters: z.object({
        destination: z
          .string()
          .describe(
            'A channel name ("#releases"), channel id, user id or "@username" to direct-message.',
          ),
        text: z
          .string()
          .min(1)
          .max(4000)
          .describe("The message, in the platform's Markdown dialect."),
        threadId: z
          .string()
          .optional()
          .describe(
            "Reply inside this thread of the destination channel instead of posting at top level.",
          ),
        silent: z
          .boolean()
          .default(false)
          .describe("Post without triggering notifications, where the platform supports it."),
      }),
      execute: ({ destination }) => `Posted to ${destination} (message 1710405000.000200).`,
    }),

    defineTool({
      id: "calculator",
      description:
        "Evaluate a mathematical expression exactly. Supports + - * / ^ %, parentheses, functions (sqrt, abs, round, floor, ceil, log, ln, exp, sin, cos, tan, min, max), constants pi and e, and percentages. Use it for any arithmetic beyond trivial mental math, including money and dates expressed as numbers.",
      parameters: z.object({
        expression: z
          .string()
          .max(500)
          .describe('The expression, e.g. "(1299 * 0.85) / 12" or "sqrt(2) * 10^3".'),
        precision: z
          .number()
          .int()
          .min(0)
          .max(20)
          .default(10)
          .describe("Significant digits in the result."),
      }),
      execute: ({ expression }) => `${expression} = 42`,
    }),

    defineTool({
      id: "unit_convert",
      description:
        "Convert a quantity between units of length, mass, volume, temperature, speed, area, data size, energy, pressure and time, and between currencies at today's reference rate. Returns the converted value and the factor used.",
      parameters: z.object({
        value: z.number().describe("The quantity to convert."),
        from: z
          .string()
          .describe('The source unit or ISO currency code, e.g. "mi", "lb", "°F", "EUR".'),
        to: z
          .string()
          .describe('The target unit or ISO currency code, e.g. "km", "kg", "°C", "USD".'),
        decimals: z
          .number()
          .int()
          .min(0)
          .max(12)
          .default(2)
          .describe("Decimal places in the answer."),
      }),
      execute: ({ value, from, to }) => `${value} ${from} = ${value * 2} ${to}`,
    }),

    defineTool({
      id: "translate",
      description:
        "Translate text between languages, preserving Markdown, code blocks, mentions and links. Use it when the user asks for a translation or when a message in the thread is in a language the user does not read. Detects the source language when none is given.",
      parameters: z.object({
        text: z.string().min(1).max(10000).describe("The text to translate."),
        targetLanguage: z
          .string()
          .describe('A BCP 47 language tag for the output, e.g. "fr", "pt-BR", "zh-Hans".'),
        sourceLanguage: z
          .string()
          .optional()
          .describe("The input's language tag, when known; omit to detect it."),
        formality: z
          .enum(["default", "formal", "informal"])
          .default("default")
          .describe("Register of the translation, for languages that distinguish it."),
        glossary: z
          .array(z.object({ source: z.string(), target: z.string() }))
          .optional()
          .describe("Terms that must be translated a fixed way (product names, jargon)."),
      }),
      execute: ({ targetLanguage }) => `[${targetLanguage}] Bonjour tout le monde.`,
    }),

    defineTool({
      id: "summarize_thread",
      description:
        "Summarize the messages of a thread or a channel over a period: the main points, decisions made, open questions and action items with owners. Use it when someone asks 'what did I miss', 'tl;dr', or for meeting notes from a discussion.",
      parameters: z.object({
        threadId: z
          .string()
          .optional()
          .describe("The thread to summarize; omit for the current thread or channel."),
        since: ISO_DATETIME.optional(),
        maxMessages: z
          .number()
          .int()
          .min(10)
          .max(2000)
          .default(300)
          .describe("Read at most this many of the most recent messages."),
        style: z
          .enum(["bullets", "paragraph", "decisions_and_actions"])
          .default("bullets")
          .describe("Shape of the summary."),
      }),
      execute: () => "- Agreed to ship 2.4 on Tuesday\n- Open: who owns the migration? (@dana)",
    }),

    defineTool({
      id: "create_poll",
      description:
        "Post a poll in the current channel with 2 to 10 options. Use it when the user wants the group to vote or choose, e.g. a lunch spot or a meeting time. Results are visible to everyone unless anonymous is set.",
      parameters: z.object({
        question: z.string().min(1).max(300).describe("The poll question."),
        options: z
          .array(z.string().min(1).max(100))
          .min(2)
          .max(10)
          .describe("The answers people can choose from, in display order."),
        multipleChoice: z
          .boolean()
          .default(false)
          .describe("Let people pick more than one option."),
        anonymous: z.boolean().default(false).describe("Hide who voted for what."),
        closesAt: ISO_DATETIME.optional(),
      }),
      execute: ({ options }) => `Poll posted with ${options.length} options (poll_55c1).`,
    }),

    defineTool({
      id: "weather",
      description:
        "Get current conditions and a forecast for a place: temperature, feels-like, precipitation chance, wind, humidity, UV index, sunrise and sunset, and any severe-weather alerts. Use the user's location from their profile when they do not name one.",
      capability: "weather_api",
      parameters: z.object({
        location: z
          .string()
          .describe('A place name ("Lyon, France"), postcode, or "lat,lon" coordinates.'),
        days: z
          .number()
          .int()
          .min(0)
          .max(10)
          .default(3)
          .describe("Days of forecast after today; 0 for current conditions only."),
        units: z
          .enum(["metric", "imperial"])
          .default("metric")
          .describe("Celsius and km/h, or Fahrenheit and mph."),
        hourly: z.boolean().default(false).describe("Include an hour-by-hour forecast for today."),
      }),
      execute: ({ location }) =>
        `${location}: 14°C, light rain, wind 12 km/h SW. Tomorrow 17°C, sunny.`,
    }),

    defineTool({
      id: "image_describe",
      description:
        "Describe an image attached to the conversation or at a URL: what it shows, any visible text (OCR), charts and their values, and anything the user asks about specifically. Use it whenever a user shares a screenshot, photo or diagram and asks about it.",
      capability: "vision_model",
      parameters: z.object({
        imageRef: z
          .string()
          .describe("The attachment id from the message, or an https URL of the image."),
        question: z
          .string()
          .optional()
          .describe("What to look for or answer about the image; omit for a general description."),
        detail: z
          .enum(["low", "high"])
          .default("low")
          .describe('"high" reads small text and fine detail at a higher cost.'),
      }),
      execute: () => "A bar chart of weekly sign-ups; the tallest bar is week 11 at about 1,200.",
    }),

    defineTool({
      id: "code_run",
      description:
        "Run a short program in an isolated sandbox and return its stdout, stderr, exit code and any files it wrote. Use it to compute, transform data, check code behaviour, or produce charts. The sandbox has no network access, 1 CPU, 512 MB of memory, and files do not persist between calls unless sessionId is reused. Python comes with numpy, pandas and matplotlib installed.",
      capability: "sandbox",
      defer: true,
      parameters: z.object({
        language: z
          .enum(["python", "javascript", "typescript", "bash", "ruby", "go"])
          .describe("Language of the program."),
        code: z.string().min(1).max(50000).describe("The complete program to run."),
        stdin: z.string().optional().describe("Text passed on standard input."),
        files: z
          .array(
            z.object({
              path: z.string().describe("Relative path inside the sandbox working directory."),
              content: z
                .string()
                .describe("File content, UTF-8 text or base64 when base64 is true."),
              base64: z
                .boolean()
                .default(false)
                .describe("Whether content is base64-encoded binary."),
            }),
          )
          .max(20)
          .optional()
          .describe("Input files to create before the program runs."),
        timeoutSeconds: z
          .number()
          .int()
          .min(1)
          .max(120)
          .default(30)
          .describe("Kill the program after this many seconds."),
        sessionId: z
          .string()
          .optional()
          .describe("Reuse the file system of an earlier run with this session id."),
      }),
      execute: ({ language }) => `exit 0 (${language})\nstdout:\n42\n`,
    }),

    defineTool({
      id: "sql_query",
      description:
        "Run a read-only SQL query against the team's analytics warehouse and return the rows as a table. Use it for questions about product metrics, revenue, usage or anything stored in the warehouse. Call with describe=true first to list tables and columns if you do not know the schema. Statements that write (INSERT, UPDATE, DELETE, DDL) are rejected. Results are capped at maxRows.",
      capability: "database",
      defer: true,
      parameters: z.object({
        sql: z
          .string()
          .max(20000)
          .optional()
          .describe("A single SELECT (or WITH ... SELECT) statement in PostgreSQL dialect."),
        describe: z
          .boolean()
          .default(false)
          .describe("Instead of running sql, list the schemas, tables and columns you may query."),
        database: z
          .enum(["analytics", "billing", "product_events"])
          .default("analytics")
          .describe("Which warehouse database to query."),
        parameters: z
          .array(z.union([z.string(), z.number(), z.boolean(), z.null()]))
          .optional()
          .describe("Values for $1, $2, ... placeholders in sql."),
        maxRows: z
          .number()
          .int()
          .min(1)
          .max(5000)
          .default(200)
          .describe("Row limit for the result."),
        timeoutSeconds: z.number().int().min(1).max(300).default(60).describe("Query timeout."),
      }),
      execute: () => "| week | signups |\n|------|---------|\n| 11   | 1204    |\n(1 row)",
    }),

    defineTool({
      id: "jira_search",
      description:
        "Search Jira issues with JQL or plain text and return key, summary, status, assignee, priority and updated date for each match. Use it for questions about tickets, bugs, sprints or who is working on what. Plain text is turned into a text ~ search across summary and description.",
      capability: "jira",
      defer: true,
      parameters: z.object({
        jql: z
          .string()
          .optional()
          .describe(
            "A JQL query, e.g. 'project = PAY AND status != Done AND assignee = currentUser() ORDER BY priority DESC'.",
          ),
        text: z.string().optional().describe("Free text to search for when not writing JQL."),
        projects: z
          .array(z.string())
          .optional()
          .describe('Project keys to restrict to, e.g. ["PAY", "WEB"].'),
        statusCategory: z
          .enum(["to_do", "in_progress", "done", "any"])
          .default("any")
          .describe("Filter by status category."),
        fields: z
          .array(z.string())
          .optional()
          .describe('Extra fields to return, e.g. ["labels", "fixVersions", "customfield_10016"].'),
        maxResults: z
          .number()
          .int()
          .min(1)
          .max(100)
          .default(20)
          .describe("Maximum issues to return."),
        startAt: z.number().int().min(0).default(0).describe("Offset for paging through results."),
      }),
      execute: () => "PAY-1432 [In Progress] Refund webhook retries twice (assignee: dana, P2)",
    }),

    defineTool({
      id: "calendar_list",
      description:
        "List events on the user's calendars (or a shared calendar) in a time range, with title, start, end, location, attendees and their responses, and video-call links. Use it for 'what's on my calendar', finding free time, or checking a meeting's details.",
      capability: "calendar",
      parameters: z.object({
        from: ISO_DATETIME,
        to: ISO_DATETIME,
        calendarIds: z
          .array(z.string())
          .optional()
          .describe(
            'Calendars to read; omit for the user\'s primary calendar. "team" for the shared team calendar.',
          ),
        query: z
          .string()
          .optional()
          .describe("Only events whose title or description contains this text."),
        includeDeclined: z.boolean().default(false).describe("Include events the user declined."),
        maxEvents: z
          .number()
          .int()
          .min(1)
          .max(250)
          .default(50)
          .describe("Maximum events to return."),
      }),
      execute: () => "09:30-10:00 Stand-up (Meet)\n14:00-15:00 Design review with Ana, Luis",
    }),

    defineTool({
      id: "calendar_create",
      description:
        "Create a calendar event and send invitations. Check for conflicts with calendar_list first when the user asks for a time that works for everyone. Always confirm title, time, time zone and attendees with the user before creating an event with external attendees.",
      capability: "calendar",
      defer: true,
      parameters: z.object({
        title: z.string().min(1).max(300).describe("Event title."),
        start: ISO_DATETIME,
        end: ISO_DATETIME,
        timeZone: IANA_ZONE.optional(),
        attendees: z
          .array(
            z.object({
              email: z.string().describe("Attendee email address."),
              optional: z.boolean().default(false).describe("Mark the attendee as optional."),
            }),
          )
          .optional()
          .describe("People to invite."),
        description: z
          .string()
          .max(8000)
          .optional()
          .describe("Agenda or notes, plain text or HTML."),
        location: z.string().optional().describe("A room name or address."),
        conference: z
          .enum(["none", "google_meet", "zoom", "teams"])
          .default("none")
          .describe("Attach a video-call link of this kind."),
        recurrence: z
          .string()
          .optional()
          .describe('An RFC 5545 RRULE, e.g. "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10".'),
        reminders: z
          .array(z.number().int().min(0).max(40320))
          .optional()
          .describe("Minutes before the start to send reminder notifications."),
        visibility: z
          .enum(["default", "public", "private"])
          .default("default")
          .describe("Who can see details."),
      }),
      execute: ({ title, start }) => `Created "${title}" at ${start} (evt_9b2e).`,
    }),

    defineTool({
      id: "github_issue_search",
      description:
        "Search issues and pull requests on GitHub with GitHub's search syntax and return number, title, state, author, labels and URL. Use it when someone asks about a bug report, a feature request or a PR in a public or team repository and you do not have the GitHub MCP server loaded.",
      capability: "github_token",
      parameters: z.object({
        query: z
          .string()
          .describe(
            'GitHub search syntax, e.g. "repo:acme/web is:issue is:open label:bug crash on login".',
          ),
        sort: z
          .enum(["best_match", "created", "updated", "comments", "reactions"])
          .default("best_match")
          .describe("Sort order of the results."),
        order: z.enum(["asc", "desc"]).default("desc").describe("Sort direction."),
        perPage: z.number().int().min(1).max(100).default(10).describe("Results per page."),
        page: z.number().int().min(1).default(1).describe("Page number, starting at 1."),
      }),
      execute: () =>
        "#2231 [open] Crash on login with SSO (bug, p1) https://github.com/acme/web/issues/2231",
    }),

    defineTool({
      id: "news_headlines",
      description:
        "Get the latest news headlines by topic, keyword or country, with source, publication time and a one-sentence summary. Use it for 'what's happening with ...' questions about current events.",
      capability: "web_search_provider",
      parameters: z.object({
        query: z.string().optional().describe("Keywords to match in headlines."),
        category: z
          .enum([
            "general",
            "business",
            "technology",
            "science",
            "health",
            "sports",
            "entertainment",
          ])
          .default("general")
          .describe("News category."),
        country: z.string().length(2).optional().describe('ISO 3166-1 alpha-2 code, e.g. "gb".'),
        count: z.number().int().min(1).max(30).default(8).describe("Headlines to return."),
      }),
      execute: () => "Reuters, 08:12 - Central bank holds rates steady.",
    }),

    defineTool({
      id: "wikipedia_lookup",
      description:
        "Look up a topic on Wikipedia and return the lead section, an infobox summary and the article URL. Good for stable encyclopedic facts about people, places, organisations and concepts; use web_search for anything recent.",
      capability: "network",
      parameters: z.object({
        title: z.string().describe("Article title or search terms."),
        language: z
          .string()
          .default("en")
          .describe('Wikipedia language edition, e.g. "en", "de", "ja".'),
        sections: z
          .array(z.string())
          .optional()
          .describe("Section headings to include in addition to the lead."),
      }),
      execute: ({ title }) => `${title} is ... (https://en.wikipedia.org/wiki/Example)`,
    }),

    defineTool({
      id: "dictionary_define",
      description:
        "Define a word or phrase: part of speech, pronunciation, definitions with examples, synonyms and etymology.",
      parameters: z.object({
        term: z.string().describe("The word or phrase."),
        language: z.string().default("en").describe("Language of the term."),
      }),
      execute: ({ term }) => `${term} (noun): an example definition.`,
    }),

    defineTool({
      id: "timezone_convert",
      description:
        "Convert a time from one time zone to one or more others, accounting for daylight saving. Use it when scheduling across locations ('3pm London in Tokyo?').",
      parameters: z.object({
        time: z.string().describe('The time to convert, ISO 8601 or "15:00" meaning today.'),
        fromZone: IANA_ZONE,
        toZones: z.array(z.string()).min(1).max(20).describe("IANA zones to convert into."),
      }),
      execute: ({ time, toZones }) =>
        `${time} -> ${toZones.map((zone) => `${zone} 23:00`).join(", ")}`,
    }),

    defineTool({
      id: "user_profile",
      description:
        "Look up a member of this workspace: display name, title, team, time zone, local time, status and contact fields. Use it to address people correctly or to find who to ask about something.",
      parameters: z.object({
        user: z
          .string()
          .describe('A user id, "@handle", email, or "me" for the person talking to you.'),
      }),
      execute: ({ user }) => `${user}: Dana Ruiz, Staff Engineer (Payments), Europe/Madrid, active`,
    }),

    defineTool({
      id: "channel_history",
      description:
        "Read recent messages from a channel or thread the bot is a member of, oldest first, with author, time and reactions. Use it when the user refers to something said earlier that is not in your context.",
      parameters: z.object({
        channel: z
          .string()
          .optional()
          .describe("Channel id or name; omit for the current channel."),
        threadId: z
          .string()
          .optional()
          .describe("Read this thread instead of the channel's top level."),
        limit: z.number().int().min(1).max(200).default(50).describe("Messages to return."),
        before: ISO_DATETIME.optional(),
        query: z.string().optional().describe("Only messages containing this text."),
      }),
      execute: () => "[09:02] ana: deploy is green\n[09:05] luis: :tada:",
    }),

    defineTool({
      id: "pin_message",
      description: "Pin or unpin a message in the current channel so it stays easy to find.",
      parameters: z.object({
        messageId: z.string().describe("The message to pin."),
        unpin: z.boolean().default(false).describe("Unpin instead of pin."),
      }),
      execute: ({ messageId, unpin }) => `${unpin ? "Unpinned" : "Pinned"} ${messageId}.`,
    }),

    defineTool({
      id: "react_to_message",
      description:
        "Add an emoji reaction to a message, e.g. to acknowledge a request without posting a reply.",
      parameters: z.object({
        messageId: z.string().describe("The message to react to."),
        emoji: z.string().describe('Emoji short name without colons, e.g. "white_check_mark".'),
      }),
      execute: ({ emoji }) => `Reacted with :${emoji}:.`,
    }),

    defineTool({
      id: "pdf_extract",
      description:
        "Extract text, tables and metadata from a PDF, Word or PowerPoint file attached to the conversation or at a URL. Returns Markdown with page markers; tables become Markdown tables. Use pages to read long documents in parts.",
      capability: "document_parser",
      defer: true,
      parameters: z.object({
        source: z.string().describe("Attachment id or https URL of the document."),
        pages: z
          .string()
          .optional()
          .describe('Page ranges to extract, e.g. "1-3,7"; omit for the whole document.'),
        ocr: z
          .boolean()
          .default(false)
          .describe("Run OCR on scanned pages that have no text layer (slower)."),
        tables: z
          .enum(["markdown", "csv", "skip"])
          .default("markdown")
          .describe("How to render tables found in the document."),
      }),
      execute: () => "<!-- page 1 -->\n# Quarterly report\nRevenue grew 12%.",
    }),

    defineTool({
      id: "image_generate",
      description:
        "Generate an image from a text prompt and post it to the conversation. Describe subject, style, composition and lighting in the prompt. Refuse prompts for real people's likenesses or unsafe content.",
      capability: "image_model",
      defer: true,
      parameters: z.object({
        prompt: z.string().min(1).max(4000).describe("A detailed description of the image."),
        size: z
          .enum(["1024x1024", "1536x1024", "1024x1536"])
          .default("1024x1024")
          .describe("Width x height in pixels."),
        style: z
          .enum(["natural", "vivid", "illustration", "sketch"])
          .default("natural")
          .describe("Overall look."),
        count: z.number().int().min(1).max(4).default(1).describe("Number of variations."),
      }),
      execute: () => "Posted 1 image (img_2c7d, 1024x1024).",
    }),
  ];
}

// ---------------------------------------------------------------------------
// MCP servers. Schemas are shaped like zod-to-json-schema output, which is
// what the reference servers send in `tools/list`.
// ---------------------------------------------------------------------------

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

function inputSchema(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    $schema: DRAFT_07,
  };
}

const str = (description: string): JsonSchema => ({ type: "string", description });
const num = (description: string): JsonSchema => ({ type: "number", description });
const bool = (description: string): JsonSchema => ({ type: "boolean", description });
const strEnum = (values: string[], description: string): JsonSchema => ({
  type: "string",
  enum: values,
  description,
});
const strArray = (description: string): JsonSchema => ({
  type: "array",
  items: { type: "string" },
  description,
});

function mcpTool(
  server: string,
  name: string,
  description: string,
  schema: JsonSchema,
  result: string,
): AnyTool {
  return defineJsonSchemaTool({
    id: `mcp__${server}__${name}`,
    description,
    inputSchema: schema,
    family: `mcp:${server}`,
    defer: true,
    execute: () => result,
  });
}

const OWNER = str("Repository owner (username or organization)");
const REPO = str("Repository name");
const ISSUE_NUMBER = num("The number of the issue");
const PULL_NUMBER = num("Pull request number");
const PAGE = num("Page number for pagination (min 1)");
const PER_PAGE = num("Results per page for pagination (min 1, max 100)");

function githubMcpTools(): AnyTool[] {
  const gh = (name: string, description: string, schema: JsonSchema, result: string) =>
    mcpTool("github", name, description, schema, result);
  return [
    gh(
      "create_or_update_file",
      "Create or update a single file in a GitHub repository. If updating, you must provide the SHA of the file you want to update. Use this tool to create or update a file in a GitHub repository remotely; if you are working on a local clone, commit with git instead.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          path: str("Path where to create/update the file"),
          content: str("Content of the file"),
          message: str("Commit message"),
          branch: str("Branch to create/update the file in"),
          sha: str(
            "Required if updating an existing file. The blob SHA of the file being replaced. Get it with get_file_contents.",
          ),
        },
        ["owner", "repo", "path", "content", "message", "branch"],
      ),
      '{"commit":{"sha":"3f1c2d9","message":"Update README.md"}}',
    ),
    gh(
      "search_repositories",
      "Find GitHub repositories by name, description, readme, topics, language, stars or other metadata. Returns full name, description, stars, language and last push for each match.",
      inputSchema(
        {
          query: str(
            "Repository search query. Examples: 'machine learning in:name stars:>1000 language:python', 'topic:react', 'user:facebook'. Supports advanced search syntax for precise filtering.",
          ),
          page: PAGE,
          perPage: PER_PAGE,
        },
        ["query"],
      ),
      '{"total_count":2,"items":[{"full_name":"acme/web","stargazers_count":812}]}',
    ),
    gh(
      "get_file_contents",
      "Get the contents of a file or directory from a GitHub repository. Files are returned decoded as text with their SHA; directories are returned as a listing of entries with type, size and path.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          path: str("Path to file/directory (directories must end with a slash '/')"),
          branch: str("Branch to get contents from; defaults to the repository's default branch"),
          ref: str(
            "Accepts optional git refs such as `refs/tags/{tag}`, `refs/heads/{branch}` or `refs/pull/{pr_number}/head`",
          ),
        },
        ["owner", "repo", "path"],
      ),
      '{"type":"file","path":"README.md","sha":"a1b2c3","content":"# Acme web"}',
    ),
    gh(
      "push_files",
      "Push multiple files to a GitHub repository in a single commit. Creates the commit on top of the branch head; fails if the branch does not exist.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          branch: str("Branch to push to (e.g., 'main' or 'master')"),
          files: {
            type: "array",
            items: {
              type: "object",
              properties: {
                path: str("Path of the file relative to the repository root"),
                content: str("Full content of the file"),
              },
              required: ["path", "content"],
              additionalProperties: false,
            },
            description: "Array of file objects to push, each with path and content",
          },
          message: str("Commit message"),
        },
        ["owner", "repo", "branch", "files", "message"],
      ),
      '{"ref":"refs/heads/main","object":{"sha":"9e8d7c6"}}',
    ),
    gh(
      "create_issue",
      "Create a new issue in a GitHub repository. Use it when the user asks to file a bug, feature request or task. Returns the issue number and URL.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          title: str("Issue title"),
          body: str("Issue body content, in GitHub-flavoured Markdown"),
          assignees: strArray("Usernames to assign to this issue"),
          milestone: num("Milestone number"),
          labels: strArray("Labels to apply to this issue"),
          type: str("Type of this issue, if the organization has issue types configured"),
        },
        ["owner", "repo", "title"],
      ),
      '{"number":2232,"html_url":"https://github.com/acme/web/issues/2232"}',
    ),
    gh(
      "list_issues",
      "List issues in a GitHub repository with filtering options. Pull requests are excluded. For searching across repositories or by text, use search_issues instead.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          state: strEnum(["open", "closed", "all"], "Filter by state, by default open issues"),
          labels: strArray("Filter by labels; an issue must have all of them"),
          sort: strEnum(["created", "updated", "comments"], "Sort order"),
          direction: strEnum(["asc", "desc"], "Sort direction"),
          since: str(
            "Filter by date (ISO 8601 timestamp); only issues updated at or after this time",
          ),
          page: PAGE,
          per_page: PER_PAGE,
        },
        ["owner", "repo"],
      ),
      '[{"number":2231,"title":"Crash on login with SSO","state":"open"}]',
    ),
    gh(
      "update_issue",
      "Update an existing issue in a GitHub repository: title, body, state, labels, assignees or milestone. Fields left out are not changed; labels and assignees replace the current lists.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          issue_number: num("Issue number to update"),
          title: str("New title"),
          body: str("New description"),
          assignees: strArray("New assignees"),
          milestone: num("New milestone number"),
          labels: strArray("New labels"),
          state: strEnum(["open", "closed"], "New state"),
          state_reason: strEnum(
            ["completed", "not_planned", "duplicate", "reopened"],
            "Reason for the state change; only with state",
          ),
        },
        ["owner", "repo", "issue_number"],
      ),
      '{"number":2231,"state":"closed"}',
    ),
    gh(
      "get_issue",
      "Get details of a specific issue in a GitHub repository: title, body, state, labels, assignees, milestone, reactions and timestamps.",
      inputSchema({ owner: OWNER, repo: REPO, issue_number: ISSUE_NUMBER }, [
        "owner",
        "repo",
        "issue_number",
      ]),
      '{"number":2231,"title":"Crash on login with SSO","body":"Steps to reproduce..."}',
    ),
    gh(
      "add_issue_comment",
      "Add a comment to a specific issue in a GitHub repository. Use this tool to add comments to pull requests as well (pass the pull request number as issue_number), but only if the user is not asking specifically to add review comments.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          issue_number: num("Issue number to comment on"),
          body: str("Comment content, in GitHub-flavoured Markdown"),
        },
        ["owner", "repo", "issue_number", "body"],
      ),
      '{"id":190211,"html_url":"https://github.com/acme/web/issues/2231#issuecomment-190211"}',
    ),
    gh(
      "search_issues",
      "Search for issues and pull requests across GitHub repositories using GitHub's issue search syntax. Scope the query with repo:, org: or user: qualifiers to keep results relevant.",
      inputSchema(
        {
          q: str(
            "Search query using GitHub issues search syntax, e.g. 'repo:acme/web is:open label:bug author:dana'",
          ),
          sort: strEnum(
            [
              "comments",
              "reactions",
              "reactions-+1",
              "reactions--1",
              "reactions-smile",
              "reactions-thinking_face",
              "reactions-heart",
              "reactions-tada",
              "interactions",
              "created",
              "updated",
            ],
            "Sort field by number of matches of categories, defaults to best match",
          ),
          order: strEnum(["asc", "desc"], "Sort order"),
          page: PAGE,
          per_page: PER_PAGE,
        },
        ["q"],
      ),
      '{"total_count":1,"items":[{"number":2231,"title":"Crash on login with SSO"}]}',
    ),
    gh(
      "search_code",
      "Fast and precise code search across ALL GitHub repositories using GitHub's native search engine. Best for finding exact symbols, functions, classes, or specific code patterns.",
      inputSchema(
        {
          q: str(
            "Search query using GitHub's powerful code search syntax. Examples: 'content:Skill language:Java org:github', 'NOT is:archived language:Python OR language:go', 'repo:github/github-mcp-server'. Supports exact matching, language filters, path filters, and more.",
          ),
          order: strEnum(["asc", "desc"], "Sort order for results"),
          page: PAGE,
          per_page: PER_PAGE,
        },
        ["q"],
      ),
      '{"total_count":3,"items":[{"path":"src/auth/sso.ts","repository":{"full_name":"acme/web"}}]}',
    ),
    gh(
      "create_pull_request",
      "Create a new pull request in a GitHub repository from a head branch into a base branch. Push the head branch first; use draft for work in progress.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          title: str("Pull request title"),
          body: str("Pull request body/description"),
          head: str("The name of the branch where your changes are implemented"),
          base: str("The name of the branch you want the changes pulled into"),
          draft: bool("Whether to create the pull request as a draft"),
          maintainer_can_modify: bool("Whether maintainers can modify the pull request"),
        },
        ["owner", "repo", "title", "head", "base"],
      ),
      '{"number":418,"html_url":"https://github.com/acme/web/pull/418"}',
    ),
    gh(
      "list_pull_requests",
      "List pull requests in a GitHub repository, filtered by state, head and base branch. If the user specifies an author, use search_issues with is:pr author:<user> instead.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          state: strEnum(["open", "closed", "all"], "State of the pull requests to return"),
          head: str("Filter by head user or head organization and branch name (user:ref-name)"),
          base: str("Filter by base branch name"),
          sort: strEnum(
            ["created", "updated", "popularity", "long-running"],
            "What to sort results by",
          ),
          direction: strEnum(["asc", "desc"], "The direction of the sort"),
          page: PAGE,
          per_page: PER_PAGE,
        },
        ["owner", "repo"],
      ),
      '[{"number":418,"title":"Fix SSO crash","state":"open","draft":false}]',
    ),
    gh(
      "get_pull_request",
      "Get details of a specific pull request: title, body, state, head and base, mergeability, review decision and counts of commits, additions and deletions.",
      inputSchema({ owner: OWNER, repo: REPO, pull_number: PULL_NUMBER }, [
        "owner",
        "repo",
        "pull_number",
      ]),
      '{"number":418,"mergeable":true,"head":{"ref":"fix/sso"},"base":{"ref":"main"}}',
    ),
    gh(
      "merge_pull_request",
      "Merge a pull request in a GitHub repository. Fails if required checks or reviews are missing, or if the branch has conflicts.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          pull_number: PULL_NUMBER,
          commit_title: str("Title for the automatic commit message"),
          commit_message: str("Extra detail to append to automatic commit message"),
          merge_method: strEnum(["merge", "squash", "rebase"], "Merge method to use"),
        },
        ["owner", "repo", "pull_number"],
      ),
      '{"merged":true,"sha":"5d4c3b2"}',
    ),
    gh(
      "create_pull_request_review",
      "Create a review on a pull request: approve, request changes, or comment, optionally with line comments.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          pull_number: PULL_NUMBER,
          commit_id: str("The SHA of the commit that needs a review"),
          body: str("The body text of the review"),
          event: strEnum(["APPROVE", "REQUEST_CHANGES", "COMMENT"], "The review action to perform"),
          comments: {
            type: "array",
            items: {
              anyOf: [
                {
                  type: "object",
                  properties: {
                    path: str("The relative path to the file being commented on"),
                    position: num(
                      "The position in the diff where you want to add a review comment",
                    ),
                    body: str("Text of the review comment"),
                  },
                  required: ["path", "position", "body"],
                  additionalProperties: false,
                },
                {
                  type: "object",
                  properties: {
                    path: str("The relative path to the file being commented on"),
                    line: num("The line number in the file where you want to add a review comment"),
                    body: str("Text of the review comment"),
                  },
                  required: ["path", "line", "body"],
                  additionalProperties: false,
                },
              ],
            },
            description:
              "Comments to post as part of the review (specify either position or line, not both)",
          },
        },
        ["owner", "repo", "pull_number", "body", "event"],
      ),
      '{"id":88123,"state":"APPROVED"}',
    ),
    gh(
      "get_pull_request_files",
      "Get the list of files changed in a pull request, with status, additions, deletions and the patch for each file.",
      inputSchema({ owner: OWNER, repo: REPO, pull_number: PULL_NUMBER }, [
        "owner",
        "repo",
        "pull_number",
      ]),
      '[{"filename":"src/auth/sso.ts","status":"modified","additions":12,"deletions":3}]',
    ),
    gh(
      "create_branch",
      "Create a new branch in a GitHub repository, from another branch or from the repository's default branch.",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          branch: str("Name for the new branch"),
          from_branch: str(
            "Optional: source branch to create from (defaults to the repository's default branch)",
          ),
        },
        ["owner", "repo", "branch"],
      ),
      '{"ref":"refs/heads/fix/sso","object":{"sha":"9e8d7c6"}}',
    ),
    gh(
      "list_commits",
      "Get list of commits of a branch in a GitHub repository. Returns at least 30 results per page by default, but can return more if specified using the perPage parameter (up to 100).",
      inputSchema(
        {
          owner: OWNER,
          repo: REPO,
          sha: str(
            "Commit SHA, branch or tag name to list commits of. If not provided, uses the default branch of the repository.",
          ),
          author: str("Author username or email address to filter commits by"),
          page: PAGE,
          perPage: PER_PAGE,
        },
        ["owner", "repo"],
      ),
      '[{"sha":"9e8d7c6","commit":{"message":"Fix SSO crash","author":{"name":"Dana"}}}]',
    ),
  ];
}

const FS_PATH = str("Absolute path, or a path relative to an allowed directory");
const EXCLUDE_PATTERNS: JsonSchema = {
  type: "array",
  items: { type: "string" },
  default: [],
  description: "Glob patterns of paths to skip, e.g. ['node_modules', '**/*.log']",
};

function filesystemMcpTools(): AnyTool[] {
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

// ---------------------------------------------------------------------------
// Synthetic registries
// ---------------------------------------------------------------------------

interface SyntheticFamily {
  /** `undefined` for built-in style tools. */
  readonly family: string | undefined;
  readonly capability: string | undefined;
  readonly product: string;
  readonly nouns: readonly string[];
}

const SYNTHETIC_FAMILIES: readonly SyntheticFamily[] = [
  {
    family: undefined,
    capability: undefined,
    product: "the workspace",
    nouns: ["note", "task", "bookmark", "snippet"],
  },
  {
    family: "plugin:crm",
    capability: "network",
    product: "the CRM",
    nouns: ["contact", "deal", "company", "activity"],
  },
  {
    family: "plugin:analytics",
    capability: "database",
    product: "the analytics warehouse",
    nouns: ["dashboard", "report", "metric", "segment"],
  },
  {
    family: "plugin:devops",
    capability: "sandbox",
    product: "the deployment platform",
    nouns: ["deployment", "pipeline", "environment", "secret"],
  },
  {
    family: "mcp:notion",
    capability: undefined,
    product: "Notion",
    nouns: ["page", "database", "block", "comment"],
  },
  {
    family: "mcp:linear",
    capability: undefined,
    product: "Linear",
    nouns: ["issue", "project", "cycle", "team"],
  },
  {
    family: "mcp:sentry",
    capability: undefined,
    product: "Sentry",
    nouns: ["event", "issue", "release", "alert_rule"],
  },
  {
    family: "mcp:postgres",
    capability: undefined,
    product: "the Postgres database",
    nouns: ["table", "view", "index", "query_plan"],
  },
  {
    family: "mcp:zendesk",
    capability: undefined,
    product: "Zendesk",
    nouns: ["ticket", "macro", "customer", "article"],
  },
];

type Template = "get" | "list" | "create" | "update";
const TEMPLATES: readonly Template[] = ["get", "list", "list", "create", "update", "get"];

/**
 * `n` deterministic tools of realistic size for scaling benchmarks (50, 200,
 * 1,000 tools). Tool `i` depends only on `i`, so a smaller registry is a
 * prefix of a larger one. About one in five is marked `defer`.
 */
export function syntheticTools(n: number): AnyTool[] {
  const tools: AnyTool[] = [];
  for (let i = 0; i < n; i++) tools.push(syntheticTool(i));
  return tools;
}

function syntheticTool(i: number): AnyTool {
  const random = mulberry32(0x5eed + i * 7919);
  const spec = pick(SYNTHETIC_FAMILIES, random);
  const noun = pick(spec.nouns, random);
  const template = pick(TEMPLATES, random);
  const defer = random() < 0.2;
  const verb = template === "list" ? "search" : template;
  const name = `${verb}_${template === "list" ? `${noun}s` : noun}_${i}`;
  const label = noun.replaceAll("_", " ");
  const description = describeSynthetic(template, label, spec.product, i);
  const result = `${template} ${label} ok (${i})`;

  if (spec.family?.startsWith("mcp:")) {
    const server = spec.family.slice("mcp:".length);
    return defineJsonSchemaTool({
      id: `mcp__${server}__${name}`,
      description,
      inputSchema: syntheticJsonSchema(template, label, spec.product),
      family: spec.family,
      defer,
      execute: () => result,
    });
  }
  const prefix = spec.family ? `${spec.family.slice(spec.family.indexOf(":") + 1)}_` : "";
  return defineTool({
    id: `${prefix}${name}`,
    description,
    parameters: syntheticZodSchema(template, label, spec.product),
    ...(spec.family ? { family: spec.family } : {}),
    ...(spec.capability ? { capability: spec.capability } : {}),
    defer,
    execute: () => result,
  });
}

function describeSynthetic(template: Template, label: string, product: string, i: number): string {
  switch (template) {
    case "get":
      return `Get one ${label} from ${product} by id, with all of its fields, owners and timestamps. Use it after a search when you need the full record (variant ${i}).`;
    case "list":
      return `Search ${label}s in ${product} by text and filters, newest first. Returns ids, names, status and last update for each match; page with cursor for more. Prefer narrow filters over reading many pages (variant ${i}).`;
    case "create":
      return `Create a new ${label} in ${product}. Confirm the important fields with the user before creating anything visible to others, and report the new id and link back to them (variant ${i}).`;
    case "update":
      return `Update fields of an existing ${label} in ${product}. Only the fields you pass change; lists you pass replace the current ones. Read it first if you need its current state (variant ${i}).`;
  }
}

function syntheticZodSchema(template: Template, label: string, product: string) {
  const id = z.string().describe(`The ${label} id as shown in ${product}.`);
  switch (template) {
    case "get":
      return z.object({
        id,
        fields: z
          .array(z.string())
          .optional()
          .describe("Only return these fields; omit for all of them."),
      });
    case "list":
      return z.object({
        query: z
          .string()
          .optional()
          .describe(`Free text matched against ${label} names and descriptions.`),
        status: z
          .enum(["open", "in_progress", "blocked", "done", "archived", "any"])
          .default("any")
          .describe("Only return items in this status."),
        owner: z.string().optional().describe('A user id or "me".'),
        createdAfter: z
          .string()
          .optional()
          .describe("ISO 8601 date; only items created on or after it."),
        createdBefore: z
          .string()
          .optional()
          .describe("ISO 8601 date; only items created before it."),
        sort: z
          .enum(["relevance", "created", "updated", "name"])
          .default("relevance")
          .describe("Sort key."),
        order: z.enum(["asc", "desc"]).default("desc").describe("Sort direction."),
        limit: z.number().int().min(1).max(100).default(25).describe("Items per page."),
        cursor: z.string().optional().describe("The nextCursor from the previous page."),
      });
    case "create":
    case "update":
      return z.object({
        ...(template === "update" ? { id } : {}),
        name: z.string().max(300).describe(`Name or title of the ${label}.`),
        description: z.string().max(20000).optional().describe("Longer text, Markdown allowed."),
        priority: z
          .enum(["none", "low", "medium", "high", "urgent"])
          .default("none")
          .describe("Priority."),
        labels: z.array(z.string()).optional().describe("Labels or tags to apply."),
        assignees: z.array(z.string()).optional().describe("User ids responsible for it."),
        dueDate: z.string().optional().describe("ISO 8601 due date."),
        customFields: z
          .array(
            z.object({
              key: z.string().describe("Custom field key."),
              value: z.union([z.string(), z.number(), z.boolean()]).describe("Field value."),
            }),
          )
          .optional()
          .describe(`Values for custom fields defined in ${product}.`),
        notify: z.boolean().default(true).describe("Notify watchers and assignees of the change."),
        visibility: z
          .enum(["private", "team", "organization"])
          .default("team")
          .describe("Who can see it."),
      });
  }
}

function syntheticJsonSchema(template: Template, label: string, product: string): JsonSchema {
  const id = str(`The ${label} id as shown in ${product}`);
  switch (template) {
    case "get":
      return inputSchema(
        { id, fields: strArray("Only return these fields; omit for all of them") },
        ["id"],
      );
    case "list":
      return inputSchema({
        query: str(`Free text matched against ${label} names and descriptions`),
        filter: {
          type: "object",
          properties: {
            status: strEnum(
              ["open", "in_progress", "blocked", "done", "archived"],
              "Status to match",
            ),
            owner: str('A user id or "me"'),
            created_after: str("ISO 8601 date; only items created on or after it"),
            created_before: str("ISO 8601 date; only items created before it"),
          },
          additionalProperties: false,
          description: "Structured filters, combined with AND",
        },
        sort: strEnum(["relevance", "created", "updated", "name"], "Sort key"),
        page_size: num("Results per page (1-100, default 25)"),
        start_cursor: str("The next_cursor from a previous response"),
      });
    case "create":
    case "update":
      return inputSchema(
        {
          ...(template === "update" ? { id } : {}),
          title: str(`Title of the ${label}`),
          content: str("Body text in Markdown"),
          properties: {
            type: "object",
            additionalProperties: { type: ["string", "number", "boolean", "null"] },
            description: `Property values keyed by property name, as configured in ${product}`,
          },
          parent_id: str("Id of the parent container, when the item is nested"),
          labels: strArray("Labels to apply"),
          assignee_ids: strArray("User ids to assign"),
          priority: {
            type: "integer",
            minimum: 0,
            maximum: 4,
            description: "0 = none, 1 = urgent ... 4 = low",
          },
        },
        template === "update" ? ["id"] : ["title"],
      );
  }
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** A tiny seeded PRNG, so synthetic registries are identical on every run and machine. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
