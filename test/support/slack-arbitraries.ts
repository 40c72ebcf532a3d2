import fc from "fast-check";

/** Slack-shaped bodies with any field any JSON: what a fuzzer (or a new Slack shape) sends. */
export const slackish = fc.record(
  {
    type: fc.oneof(
      fc.constantFrom("event_callback", "block_actions", "view_submission"),
      fc.jsonValue(),
    ),
    team_id: fc.oneof(fc.string(), fc.jsonValue()),
    team: fc.jsonValue(),
    authorizations: fc.oneof(
      fc.array(
        fc.record({ team_id: fc.oneof(fc.string(), fc.constant(null)) }, { requiredKeys: [] }),
      ),
      fc.jsonValue(),
    ),
    event: fc.oneof(
      fc.record(
        {
          type: fc.constantFrom("message", "app_mention"),
          text: fc.oneof(fc.string(), fc.jsonValue()),
          ts: fc.oneof(fc.string(), fc.jsonValue()),
          channel: fc.oneof(fc.string(), fc.jsonValue()),
          team: fc.jsonValue(),
          files: fc.jsonValue(),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
    ),
    view: fc.jsonValue(),
    trigger_id: fc.jsonValue(),
    actions: fc.jsonValue(),
    command: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

/**
 * Socket Mode frames as text: any JSON, any string, and envelopes whose
 * type, payload and event type are anything, including the names the
 * client emits for itself (close, ws_message, …). Slack's own control
 * frames (hello, disconnect) are left out: they do what they say.
 */
export const socketFrame = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string(),
  fc
    .record(
      {
        envelope_id: fc.uuid(),
        type: fc.oneof(
          fc.constantFrom("events_api", "slash_commands", "interactive", "close", "ws_message"),
          fc.jsonValue(),
        ),
        payload: fc.oneof(
          slackish,
          fc.jsonValue(),
          fc.record({
            type: fc.constant("event_callback"),
            event: fc.record(
              {
                type: fc.constantFrom(
                  "close",
                  "error",
                  "ws_message",
                  "slack_event",
                  "connected",
                  "message",
                ),
                text: fc.string(),
              },
              { requiredKeys: ["type"] },
            ),
          }),
        ),
        retry_attempt: fc.jsonValue(),
        accepts_response_payload: fc.jsonValue(),
      },
      { requiredKeys: ["envelope_id", "type"] },
    )
    .filter((e) => e.type !== "hello" && e.type !== "disconnect")
    .map((e) => JSON.stringify(e)),
);
