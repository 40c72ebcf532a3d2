/**
 * The bot token scopes the Slack channel needs, derived from what it does:
 * every Web API method it calls, every event it subscribes to, and its slash
 * commands. The one home of this list: `deploy/slack/manifest*.yaml` must ask
 * for exactly these (a test checks), and `switchyard doctor` compares a live
 * token's scopes with them.
 *
 * A method that reads conversations needs the scope of each conversation type
 * the bot is in: public channels, private channels, DMs and group DMs.
 */

/** The scope prefixes of the four conversation types, in Slack's order. */
const CONVERSATION_TYPES = ["channels", "groups", "im", "mpim"] as const;
const everyType = (suffix: "history" | "read") => CONVERSATION_TYPES.map((t) => `${t}:${suffix}`);

export interface SlackMethodNeed {
  readonly scopes: readonly string[];
  /** What the channel uses the method for, in doctor's words. */
  readonly why: string;
}

/**
 * Every Web API method the channel calls (`client.<family>.<method>` in
 * src/platforms/slack), with the scopes Slack requires for it. A new call
 * belongs here; a test fails while one is missing.
 */
export const SLACK_METHODS: Readonly<Record<string, SlackMethodNeed>> = {
  "auth.test": { scopes: [], why: "the bot's own user and workspace" },
  "chat.postMessage": { scopes: ["chat:write"], why: "answers" },
  "chat.update": { scopes: ["chat:write"], why: "edits while an answer streams" },
  "chat.startStream": { scopes: ["chat:write"], why: "streaming an answer in a thread" },
  "chat.appendStream": { scopes: ["chat:write"], why: "streaming an answer in a thread" },
  "chat.stopStream": { scopes: ["chat:write"], why: "finishing a streamed answer" },
  "chat.postEphemeral": {
    scopes: ["chat:write"],
    why: "telling only the clicker what came of an approval click",
  },
  "conversations.replies": {
    scopes: everyType("history"),
    why: "finding its own post in a thread after a retry",
  },
  "conversations.history": {
    scopes: everyType("history"),
    why: "finding its own post in a DM after a retry",
  },
  "conversations.open": {
    scopes: ["im:write"],
    why: "telling a schedule's owner, in a DM, that it was paused",
  },
  "conversations.info": {
    scopes: everyType("read"),
    why: "send_message and the assistant pane: a channel's name",
  },
  "conversations.members": { scopes: everyType("read"), why: "send_message: who is in a channel" },
  "users.conversations": {
    scopes: everyType("read"),
    why: "send_message: the channels the bot is in",
  },
  "users.info": { scopes: ["users:read"], why: "names for mentions, and who is an admin" },
  "files.info": {
    scopes: ["files:read"],
    why: "a shared file's download URL, when the event left it out",
  },
  // Both through the WebClient's filesUploadV2, which also POSTs the bytes to the upload URL.
  "files.getUploadURLExternal": {
    scopes: ["files:write"],
    why: "files a tool made for the answer (a chart, a report)",
  },
  "files.completeUploadExternal": {
    scopes: ["files:write"],
    why: "sharing those files in the answer's thread",
  },
  // Slack takes chat:write for it since March 2026 (assistant:write before, soon no longer).
  "assistant.threads.setStatus": {
    scopes: ["chat:write"],
    why: 'what the turn is doing ("is searching the web…") while a thread\'s answer is on its way',
  },
  "assistant.threads.setSuggestedPrompts": {
    scopes: ["assistant:write"],
    why: "suggested prompts when someone opens the assistant pane",
  },
  "assistant.threads.setTitle": {
    scopes: ["assistant:write"],
    why: "naming an assistant pane thread after its first message",
  },
};

/** Every event the channel subscribes to, with the scope Slack requires for it. */
export const SLACK_EVENTS: Readonly<Record<string, string>> = {
  app_mention: "app_mentions:read",
  // The assistant pane (assistant.ts); Slack asks for assistant:write to subscribe to them.
  assistant_thread_started: "assistant:write",
  assistant_thread_context_changed: "assistant:write",
  "message.channels": "channels:history",
  "message.groups": "groups:history",
  "message.im": "im:history",
  "message.mpim": "mpim:history",
};

/** `/tools` and `/skills`. */
export const SLACK_COMMAND_SCOPE = "commands";

/** Downloading a file people share (`url_private_download` with the bot token): no method, a scope all the same. */
export const SLACK_DOWNLOAD_SCOPE = "files:read";

/** The bot token scopes the channel needs, sorted and without repeats. */
export function requiredSlackScopes(): string[] {
  const scopes = new Set<string>([
    SLACK_COMMAND_SCOPE,
    SLACK_DOWNLOAD_SCOPE,
    ...Object.values(SLACK_EVENTS),
  ]);
  for (const need of Object.values(SLACK_METHODS))
    for (const scope of need.scopes) scopes.add(scope);
  return [...scopes].sort();
}

/** What a token granted `granted` lacks, each scope with what it is needed for. */
export function missingSlackScopes(granted: readonly string[]): { scope: string; for: string[] }[] {
  const have = new Set(granted);
  return requiredSlackScopes()
    .filter((scope) => !have.has(scope))
    .map((scope) => ({
      scope,
      for: [
        ...Object.entries(SLACK_METHODS)
          .filter(([, need]) => need.scopes.includes(scope))
          .map(([method]) => method),
        ...Object.entries(SLACK_EVENTS)
          .filter(([, needed]) => needed === scope)
          .map(([event]) => `${event} events`),
        ...(scope === SLACK_COMMAND_SCOPE ? ["/tools and /skills"] : []),
        ...(scope === SLACK_DOWNLOAD_SCOPE ? ["downloading the files people share"] : []),
      ],
    }));
}
