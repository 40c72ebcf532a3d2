import { PassThrough } from "node:stream";
import { describe, it } from "vitest";
import { CONSOLE_ADDRESS, CONSOLE_USER, runConsole } from "../../src/platforms/terminal/channel.ts";
import { Inbox } from "../../src/store/inbox.ts";
import { channelRuntime } from "../support/channels.ts";
import {
  budgetRefusesTheNextMessage,
  type CommandDriver,
  configOf,
  type DriverOptions,
  helpListsWhatThePersonMayUse,
  modelSwitchesTheRequest,
  newForgetsHistory,
  queueShowsAndSets,
  skillOverTheLimitIsTooLong,
  stopEndsARunningTurn,
  usageMatchesTheModel,
} from "../support/command-scenarios.ts";
import { bigTool, lookupTool, startPipeline } from "../support/pipeline.ts";
import { connectRedis } from "../support/redis.ts";
import { scheduleAddFromChat } from "../support/schedule-scenarios.ts";

/** The console channel in this process, on a real pipeline: lines in, printed answers out. */
async function startConsole(options: DriverOptions): Promise<CommandDriver> {
  const tools = options.tools ?? [lookupTool, bigTool];
  // The person at the terminal owns the bot: both personas are them.
  const config = configOf(options.config, `console:${CONSOLE_USER}`);
  const skills = options.skills ? { skills: options.skills } : {};
  const pipe = await startPipeline({ tools, config, model: "fake-model", ...skills });
  await pipe.app.worker?.worker.waitUntilReady();
  const runtime = channelRuntime(pipe, tools, {
    config,
    ...skills,
    ...(options.stopTurn ? { stopTurn: options.stopTurn } : {}),
  });
  const input = new PassThrough();
  const printed: string[] = [];
  const reader = connectRedis();
  const running = runConsole({
    input,
    print: (text) => printed.push(text.replace(/\n$/, "")),
    queue: pipe.app.queue,
    idle: (address) => new Inbox(pipe.app.redis, pipe.app.store.keys).idle(address),
    outbox: pipe.app.outbox,
    reader,
    sources: runtime.sources,
    gate: runtime.gate,
    ...(runtime.stopTurn ? { stopTurn: runtime.stopTurn } : {}),
    ...(runtime.schedules ? { schedules: runtime.schedules } : {}),
  });
  return {
    pipe,
    address: () => CONSOLE_ADDRESS,
    say: async (text) => {
      input.write(`${text}\n`);
    },
    said: () => printed,
    async close() {
      input.end();
      await running;
      reader.disconnect();
      await pipe.close();
    },
  };
}

describe("chat commands in the console", () => {
  it("/new makes the next model request carry no earlier messages", () =>
    newForgetsHistory(startConsole));
  it("/usage shows the tokens the model reported, the cached share and the cost", () =>
    usageMatchesTheModel(startConsole, "/usage", true));
  it("/model switches the next request's model and refuses a name not in the list", () =>
    modelSwitchesTheRequest(startConsole, false));
  it("refuses a message once the workspace's daily token budget is spent, saying when it resets", () =>
    budgetRefusesTheNextMessage(startConsole));
  it(
    "/stop from another process stops a turn running a 20 s tool, and the conversation goes on",
    () => stopEndsARunningTurn(startConsole),
    40_000,
  );
  it("/help lists the commands, the tools and the load mode", () =>
    helpListsWhatThePersonMayUse(startConsole, "/help", false));
  it("/queue shows the mode and where it comes from; an admin sets it", () =>
    queueShowsAndSets(startConsole, false));
  it("answers a /skill whose instructions carry the request over the limit as too long, as every platform does", () =>
    skillOverTheLimitIsTooLong(startConsole));
});

describe("/schedule in the console", () => {
  it("makes a schedule as the person at the terminal, with the pattern and the next three runs, lists and removes it", () =>
    scheduleAddFromChat(startConsole, { refusedTarget: "", memberIsAdmin: true }));
});
