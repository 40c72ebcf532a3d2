import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { type AnyTool, defineTool, type ToolContext } from "../core/tools/tool.ts";
import type { ConversationDirectory } from "../ports/directory.ts";
import type { Outbound } from "../ports/outbound.ts";

/**
 * Where `send_message` posts: the outbound and directory of each platform.
 * Looked up when the tool runs, because channels are built after the
 * registry and a worker may serve several platforms.
 */
export interface MessagingPorts {
  outbound(platform: string): Outbound | undefined;
  directory(platform: string): ConversationDirectory | undefined;
}

/** The longest message the tool posts; a longer one is refused, not cut. */
const MAX_TEXT = 3_000;

/**
 * `send_message`: posts into another conversation of the same workspace that
 * the bot is in, on behalf of the person asking. Who may post there is asked
 * of the platform when the tool runs (rule 8), so it cannot be used to speak
 * where the person could not; the message says who asked for it. Deferred:
 * most turns never need it. It asks first by default (`approval: "ask"`):
 * what it posts lands in front of people outside this conversation, so a
 * person sees the text before it goes; `/tools on send_message` lifts that.
 */
export function sendMessageTool(ports: MessagingPorts): AnyTool {
  return defineTool({
    id: "send_message",
    description:
      "Posts a message into another channel of this workspace that the bot is in, on behalf of the person asking, and says who asked. Use it only when the person asks to post somewhere else; answer in this conversation as usual otherwise.",
    parameters: z.object({
      to: z
        .string()
        .min(1)
        .max(200)
        .describe("The channel, by name (#general) or id, exactly as the person gave it."),
      text: z.string().min(1).max(MAX_TEXT).describe("The message to post."),
    }),
    defer: true,
    effects: true,
    approval: "ask",
    execute: async ({ to, text }, ctx) => {
      const directory = ports.directory(ctx.platform);
      const outbound = ports.outbound(ctx.platform);
      if (!directory || !outbound) {
        return `Not sent: posting into other conversations is not supported on ${ctx.platform}.`;
      }
      const entry = await directory.find(ctx.workspace, to);
      if (!entry) {
        return `Not sent: I am not in a channel called ${JSON.stringify(to)} here. Check the name, or invite me to the channel first.`;
      }
      const permission = await directory.mayPost(ctx.workspace, entry, ctx.user);
      if (!permission.allowed) return `Not sent to ${entry.name}: ${permission.reason}`;
      const address = {
        platform: ctx.platform,
        ...(ctx.account ? { account: ctx.account } : {}),
        workspace: ctx.workspace,
        channel: entry.channel,
        conversation: entry.channel,
      };
      const body = `${text}\n\n— sent at the request of ${directory.mention(ctx.user)}`;
      const ref = await outbound.post(address, body, {
        idempotencyKey: idempotencyKey(ctx),
        // A resumed turn repeats the call with the same key: a channel that can look it up posts once.
        mayExist: true,
      });
      return `Posted in ${entry.name} (message ${ref}).`;
    },
  });
}

function idempotencyKey(ctx: ToolContext): string {
  if (!ctx.callKey) return `send-${randomUUID()}`;
  const digest = createHash("sha1")
    .update(`${ctx.platform}|${ctx.workspace}|${ctx.conversation}|${ctx.callKey}`)
    .digest("hex");
  return `send-${digest}`;
}
