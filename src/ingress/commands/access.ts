import { handleAccessCommand } from "./access-command.ts";
import type { ChatCommand } from "./registry.ts";

/**
 * `/access approve|list|revoke`: who may talk to the bot. Anyone may type
 * it; the handler says who may do what (owners approve, owners and
 * configured admins list and revoke), so /help shows each form only to them.
 */
export const accessCommand: ChatCommand = {
  name: "access",
  audience: "anyone",
  help: [
    {
      usage: "/access approve CODE",
      summary: "Lets in the person a pairing code was given to.",
      audience: "owners",
    },
    {
      usage: "/access list [PAGE]",
      summary: "Who is let in, and who is waiting: the newest 10, then page by page.",
      audience: "admins",
    },
    {
      usage: "/access revoke PLATFORM:USER",
      summary: "Takes someone's approval back.",
      audience: "admins",
    },
  ],
  async run({ line, actor, ctx }) {
    const text = await handleAccessCommand(line, actor, ctx.policy, {
      access: ctx.sources.store.access,
      config: ctx.sources.config,
    });
    return { kind: "reply", text };
  },
};
