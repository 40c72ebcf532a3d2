import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { WarnOnce } from "../../src/core/logger.ts";
import { defineSkillTool } from "../../src/core/skills/index.ts";
import { ToolRegistry } from "../../src/core/tools/registry.ts";
import { IngressGate } from "../../src/ingress/access/gate.ts";
import { EMPTY_CONFIG } from "../../src/platforms/config.ts";
import { CONSOLE_ADDRESS, runConsole } from "../../src/platforms/terminal/channel.ts";
import { loadSkills, type SkillLibrary } from "../../src/runtime/skill-folders.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { lookupTool, type Pipeline, startPipeline } from "../support/pipeline.ts";
import { connectRedis } from "../support/redis.ts";

const NO_SKILLS = { skills: [], enabled: [], layers: [] };
const skillTool = defineSkillTool((ctx) => ctx.skills ?? NO_SKILLS);

let pipe: Pipeline | undefined;
let library: SkillLibrary | undefined;
afterEach(async () => {
  library?.close();
  await pipe?.close();
  pipe = undefined;
});

/** Types `lines` into a console channel on the pipeline and returns what it printed. */
async function consoleSession(
  p: Pipeline,
  skills: SkillLibrary,
  registry: ToolRegistry,
  lines: string[],
): Promise<string> {
  const input = new PassThrough();
  let printed = "";
  const reader = connectRedis({ maxRetriesPerRequest: null });
  const done = runConsole({
    input,
    print: (text) => {
      printed += text;
    },
    queue: p.app.queue,
    idle: (address) => new Inbox(p.app.redis, p.app.store.keys).idle(address),
    outbox: p.app.outbox,
    reader,
    skillLibrary: skills,
    gate: new IngressGate({ store: p.app.store, config: () => EMPTY_CONFIG }),
    sources: {
      store: p.app.store,
      registry,
      capabilities: () => ({}),
      config: () => EMPTY_CONFIG,
      runtime: {},
      warnings: new WarnOnce(),
      skills,
    },
  });
  input.end(`${lines.join("\n")}\n`);
  await done;
  reader.disconnect();
  return printed;
}

describe("skills through the real pipeline", () => {
  it("puts enabled skills in the system prompt, runs /skill with its body, and refuses a disabled one naming the scope", async () => {
    library = await loadSkills({ global: [], workspaces: {} });
    pipe = await startPipeline({ tools: [lookupTool, skillTool], skills: library });
    pipe.fake.script({ content: "Decisions: ship it." }, { content: "Anything else?" });

    const registry = new ToolRegistry([lookupTool, skillTool]);
    // Two sittings, so the first turn is frozen before the skill is switched off.
    const first = await consoleSession(pipe, library, registry, [
      "/skill meeting-notes we agreed to ship on Friday; Bo owns the release notes",
    ]);
    const later = await consoleSession(pipe, library, registry, [
      "/skills off meeting-notes",
      "/skill meeting-notes again please",
      "and now without it",
    ]);
    const out = first + later;
    expect(out).toContain("Decisions: ship it.");
    expect(out).toContain(
      "meeting-notes is disabled by the channel scope — enable with /skills on meeting-notes",
    );

    const [invoked, after] = pipe.fake.requests.map((r) => r.body);
    // The first turn: both built-ins in the block, and the skill's instructions in the message.
    expect(invoked.messages[0].content).toContain("meeting-notes");
    expect(invoked.messages[0].content).toContain("bot-guide");
    const asked = invoked.messages.at(-1).content as string;
    expect(asked).toContain("# Meeting notes");
    expect(asked).toContain("we agreed to ship on Friday");
    // The refused /skill made no turn; the next message's prompt no longer lists the skill.
    expect(pipe.fake.requests).toHaveLength(2);
    expect(after.messages[0].content).not.toContain("meeting-notes");
    expect(after.messages[0].content).toContain("bot-guide");
  });

  it("answers the model's skill tool call with the body and the files beside it", async () => {
    library = await loadSkills({ global: [], workspaces: {} });
    pipe = await startPipeline({ tools: [skillTool], skills: library });
    pipe.fake.script(
      { toolCalls: [{ id: "s1", name: "skill", arguments: { name: "Bot-Guide" } }] },
      { content: "Here is how." },
    );
    await pipe.app.queue.enqueue(pipe.message("how do I use you?", CONSOLE_ADDRESS));
    await pipe.posts(1);
    const result = pipe.fake.requests[1]?.body.messages.at(-1);
    expect(result.role).toBe("tool");
    expect(result.content).toContain("/skills");
    expect(result.content).toContain("/tools");
  });
});
