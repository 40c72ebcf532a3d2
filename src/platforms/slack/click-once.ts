import { describe } from "./errors.ts";
import { actionEventId } from "./payload.ts";
import type { SlackCommandDeps } from "./slash-command.ts";

/**
 * Runs what a button click does, once: a click Slack delivers again (its
 * redelivery, a second ingress process) is taken by the ledger and changes
 * nothing again. When it fails (the work itself, or the ledger with Redis
 * away), the failure is logged and the person is told with `failed`, which
 * gets the reason.
 */
export async function takeClickOnce(
  deps: Pick<SlackCommandDeps, "ledger" | "runtime">,
  body: unknown,
  work: () => Promise<void>,
  failed: (reason: string) => Promise<void>,
): Promise<void> {
  const eventId = actionEventId(body);
  try {
    if (eventId) await deps.ledger().take(eventId, work);
    else await work();
  } catch (error) {
    deps.runtime.logger.warn("a Slack button click failed", { error: describe(error) });
    await failed(describe(error));
  }
}
