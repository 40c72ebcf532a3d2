import type { ChatCommand } from "./registry.ts";

export const STOP_REPLIES = {
  stopped: "Stopping what I was doing.",
  idle: "Nothing is running here.",
  unavailable: "This process cannot stop turns; try again in a moment.",
} as const;

/** `/stop`: cancels the conversation's running turn, on whichever worker runs it. */
export const stopCommand: ChatCommand = {
  name: "stop",
  audience: "anyone",
  help: [{ usage: "/stop", summary: "Stops what I'm doing here.", audience: "anyone" }],
  async run({ where, ctx }) {
    if (!ctx.stopTurn) return { kind: "reply", text: STOP_REPLIES.unavailable };
    const stopped = await ctx.stopTurn(where);
    return { kind: "reply", text: stopped ? STOP_REPLIES.stopped : STOP_REPLIES.idle };
  },
};
