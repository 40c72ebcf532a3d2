/** The demo registry's built-in tools: what a well-equipped chat bot carries. */
import { z } from "zod";
import { type AnyTool, defineTool } from "../../src/core/tools/tool.ts";

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

export function builtinTools(): AnyTool[] {
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
