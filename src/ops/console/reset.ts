import { createHmac, timingSafeEqual } from "node:crypto";
import type { Actor } from "../../core/commands/index.ts";
import type { ConversationAddress } from "../../core/conversation.ts";
import { routeChatText } from "../../ingress/chat-commands.ts";
import { newCommand } from "../../ingress/commands/new.ts";
import type { ContractSources } from "../../turn/contract.ts";

/**
 * Who acts through the console: whoever holds its token. The console has
 * no accounts, so that person counts as an owner, as the person at the
 * terminal does for the console channel.
 */
export const CONSOLE_OPERATOR: Actor = Object.freeze({
  id: "console:operator",
  isPlatformAdmin: false,
});

/**
 * The hidden field of an action's form: a MAC of the action and the
 * conversation under the console's token. Browsers send basic auth with a
 * form another site posts, so the token alone would not show the operator
 * meant it; another site cannot read the page this value is on.
 */
export function actionToken(secret: string, action: string, key: string): string {
  return createHmac("sha256", secret).update(`${action}\n${key}`).digest("base64url");
}

export function actionTokenMatches(
  secret: string,
  action: string,
  key: string,
  given: unknown,
): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(actionToken(secret, action, key));
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Resets a conversation as `/new` (or `/new --all`) typed in it would: the
 * same command through the same pipeline, checked against `permissions:`
 * with the operator as an owner. Answers what the command answered.
 */
export async function resetConversation(
  sources: ContractSources,
  address: ConversationAddress,
  all: boolean,
): Promise<string> {
  const { permissions } = sources.config();
  const policy = { ...permissions, owners: [...permissions.owners, CONSOLE_OPERATOR.id] };
  const outcome = await routeChatText(
    all ? "/new --all" : "/new",
    address,
    CONSOLE_OPERATOR,
    { sources, policy },
    [newCommand],
  );
  return outcome.text;
}
