import type { ChatCommand } from "./registry.ts";

/** The replies of `/new`, one home for the words the README quotes. */
export const NEW_REPLIES = {
  history:
    "Starting a fresh conversation: I've forgotten what we said here and the tools I loaded. Your tool and skill choices are kept (/new --all forgets them too).",
  all: "Starting a fresh conversation: I've forgotten what we said here, the tools I loaded, and this conversation's tool, model and queue choices.",
  later: " My answer to what I'm working on still comes; the fresh start begins after it.",
} as const;

/**
 * `/new` (or `/reset`): history and discovery mounts are forgotten for this
 * conversation; `--all` also forgets its intent (tool toggles) and chat
 * settings. A running turn finishes and answers first (see ResetStore).
 */
export const newCommand: ChatCommand = {
  name: "new",
  aliases: ["reset"],
  audience: "anyone",
  help: [
    {
      usage: "/new [--all]",
      summary:
        "Starts a fresh conversation (also /reset); --all also forgets this conversation's tool choices.",
      audience: "anyone",
    },
  ],
  async run({ args, where, ctx }) {
    const word = args.toLowerCase();
    if (word !== "" && word !== "--all" && word !== "all") {
      return {
        kind: "reply",
        text: `/new takes nothing or --all, not "${args.slice(0, 40)}". /new starts afresh keeping your tool choices; /new --all forgets them too.`,
      };
    }
    const kind = word === "" ? "history" : "all";
    const when = await ctx.sources.store.resets.request(where, kind);
    return { kind: "reply", text: NEW_REPLIES[kind] + (when === "later" ? NEW_REPLIES.later : "") };
  },
};
