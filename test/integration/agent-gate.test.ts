import { describe, expect, it } from "vitest";
import type { InboundMessage } from "../../src/core/conversation.ts";
import { IngressGate } from "../../src/ingress/access/gate.ts";
import { parseConfig } from "../../src/platforms/config.ts";
import { createStore } from "../../src/store/index.ts";
import { useTestRedis } from "../support/redis.ts";

const db = useTestRedis("agent-gate");

let counter = 0;
function message(channel: string, over: Partial<InboundMessage> = {}): InboundMessage {
  counter += 1;
  return {
    platform: "slack",
    workspace: "T1",
    channel,
    conversation: channel,
    user: "U1",
    kind: "group",
    text: "hi",
    attachments: [],
    eventId: `e${counter}`,
    time: Date.now(),
    ...over,
  };
}

/** A support agent with its own access and limits in #help; the rest of the workspace answers as configured. */
const config = parseConfig(
  `
access: { groups: open }
limits: { user: 5/h }
agents:
  - id: support
    limits: { user: 1/h }
  - id: private
    access: { groups: closed }
bindings:
  - { agent: support, channel: "slack:C0HELP" }
  - { agent: private, channel: "slack:C0PRIV" }
`,
  "agents.yaml",
);

describe("an agent's own access and limits", () => {
  it("apply where the agent answers, and nowhere else", async () => {
    const store = createStore(db.redis, { prefix: db.prefix });
    const gate = new IngressGate({ store, config: () => config });

    expect((await gate.meter(message("C0HELP"))).kind).toBe("pass");
    expect(await gate.meter(message("C0HELP"))).toMatchObject({
      kind: "refused",
      reason: "limit_user",
    });
    // The top-level limit of five an hour still holds in other channels.
    expect((await gate.meter(message("C0GENERAL", { user: "U2" }))).kind).toBe("pass");
    expect((await gate.meter(message("C0GENERAL", { user: "U2" }))).kind).toBe("pass");

    expect(await gate.admit(message("C0PRIV"))).toMatchObject({ kind: "refused" });
    expect((await gate.admit(message("C0GENERAL"))).kind).toBe("pass");

    // Bound away from the private agent by /agent, the channel takes messages again.
    await store.settings.write("channel", message("C0PRIV"), "agent", "default");
    expect((await gate.admit(message("C0PRIV"))).kind).toBe("pass");
  });
});
