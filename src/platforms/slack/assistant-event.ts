import { z } from "zod";

/**
 * What the assistant pane says about where the person is: the channel they
 * are looking at in Slack while the pane is open, with its team and
 * enterprise. Every field is optional: a pane opened from the app's own DM,
 * or from a view that is no channel, has none.
 */
export interface AssistantContext {
  readonly channel?: string;
  readonly team?: string;
  readonly enterprise?: string;
}

/**
 * An `assistant_thread_started` or `assistant_thread_context_changed`
 * event, as Switchyard reads it: the pane's thread (a DM with the bot,
 * `channel` and `thread`), who opened it, and what they are looking at.
 */
export interface AssistantThreadEvent {
  readonly type: "assistant_thread_started" | "assistant_thread_context_changed";
  readonly user: string;
  /** The DM the pane's thread is in (D…). */
  readonly channel: string;
  /** The thread's root ts: with `channel`, the conversation. */
  readonly thread: string;
  readonly context: AssistantContext;
  /** When Slack says the event happened: a redelivered older event must not undo a newer one. */
  readonly eventTs?: string;
}

/** A Slack id: letters and digits, as Slack writes them; anything else is dropped, not passed on. */
const slackId = z
  .string()
  .regex(/^[A-Z0-9]{2,40}$/)
  .optional()
  .catch(undefined);
const ts = z.string().regex(/^\d{1,12}\.\d{1,9}$/);

const contextSchema = z
  .object({ channel_id: slackId, team_id: slackId, enterprise_id: slackId })
  .catch({ channel_id: undefined, team_id: undefined, enterprise_id: undefined });

const eventSchema = z.object({
  type: z.enum(["assistant_thread_started", "assistant_thread_context_changed"]),
  assistant_thread: z.object({
    user_id: z.string().regex(/^[A-Z0-9]{2,40}$/),
    channel_id: z.string().regex(/^[A-Z0-9]{2,40}$/),
    thread_ts: ts,
    // Absent, null or of the wrong shape: the person is looking at nothing we can name.
    context: contextSchema.optional().catch(undefined),
  }),
  event_ts: ts.optional().catch(undefined),
});

/**
 * The event's fields, or undefined when it is not an assistant thread event
 * Switchyard can act on (another type, no thread, ids that are not Slack's).
 * A context field of the wrong shape is dropped on its own; the event stays.
 *
 * @example
 * readAssistantThreadEvent({
 *   type: "assistant_thread_started",
 *   assistant_thread: {
 *     user_id: "U123", channel_id: "D123", thread_ts: "1729999327.187299",
 *     context: { channel_id: "C123", team_id: "T123", enterprise_id: null },
 *   },
 * });
 * // { type: "assistant_thread_started", user: "U123", channel: "D123",
 * //   thread: "1729999327.187299", context: { channel: "C123", team: "T123" } }
 * // (and `eventTs` when the event has its `event_ts`)
 */
export function readAssistantThreadEvent(event: unknown): AssistantThreadEvent | undefined {
  const parsed = eventSchema.safeParse(event);
  if (!parsed.success) return undefined;
  const { type, assistant_thread: t, event_ts: eventTs } = parsed.data;
  const c = t.context;
  return {
    type,
    user: t.user_id,
    channel: t.channel_id,
    thread: t.thread_ts,
    context: {
      ...(c?.channel_id ? { channel: c.channel_id } : {}),
      ...(c?.team_id ? { team: c.team_id } : {}),
      ...(c?.enterprise_id ? { enterprise: c.enterprise_id } : {}),
    },
    ...(eventTs ? { eventTs } : {}),
  };
}
