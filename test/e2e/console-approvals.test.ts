import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_APPROVAL_POLICY } from "../../src/core/approvals/approval.ts";
import { requestText } from "../../src/core/approvals/request.ts";
import type { AnyTool } from "../../src/core/tools/tool.ts";
import { CONSOLE_ADDRESS, CONSOLE_USER, runConsole } from "../../src/platforms/terminal/channel.ts";
import type { SwitchyardOptions } from "../../src/runtime/app.ts";
import {
  approvalControls,
  deployRuns,
  deployTool,
  parkedWait,
  parkRequest,
} from "../support/approvals.ts";
import { channelRuntime, until } from "../support/channels.ts";
import { lookupTool, type Pipeline, startPipeline } from "../support/pipeline.ts";
import { connectRedis, uniquePrefix } from "../support/redis.ts";

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

/** The console channel on a pipeline whose turns nobody runs: what the terminal prints, line by line. */
async function startTerminal(
  options: Partial<SwitchyardOptions> & { tools?: AnyTool[] } = {},
): Promise<{
  pipe: Pipeline;
  type: (line: string) => void;
  printed: string[];
}> {
  const tools = options.tools ?? [lookupTool];
  const pipe = await startPipeline({ worker: false, ...options, tools });
  await pipe.app.worker?.worker.waitUntilReady();
  const runtime = channelRuntime(pipe, tools);
  const input = new PassThrough();
  const printed: string[] = [];
  const reader = connectRedis();
  const running = runConsole({
    input,
    print: (text) => printed.push(text.replace(/\n$/, "")),
    queue: pipe.app.queue,
    idle: async () => true,
    outbox: pipe.app.outbox,
    reader,
    sources: runtime.sources,
    gate: runtime.gate,
    ...(runtime.approvals ? { approvals: runtime.approvals } : {}),
  });
  open.push(async () => {
    input.end();
    await running;
    reader.disconnect();
    await pipe.close();
  });
  // Once a command is answered the terminal reads the outbox: nothing posted from here is missed.
  input.write("/help\n");
  await until(() => printed.find((p) => p.startsWith("Commands you can use here")));
  return { pipe, type: (line) => input.write(`${line}\n`), printed };
}

describe("approval requests in the terminal", () => {
  it("print the commands to type, take /approve, and print the request's outcome", async () => {
    const { pipe, type, printed } = await startTerminal();
    const request = await parkRequest(
      pipe.app,
      CONSOLE_ADDRESS,
      { tool: "send_message", arguments: '{"to":"#ops"}' },
      { user: CONSOLE_USER, name: "you" },
    );
    const ref = await pipe.app.outbox.post(
      CONSOLE_ADDRESS,
      requestText(request.wait, DEFAULT_APPROVAL_POLICY),
      { idempotencyKey: `request:${request.id}`, controls: approvalControls(request.id) },
    );
    const shown = await until(() => printed.find((p) => p.startsWith("Approval needed")));
    expect(shown.split("\n").at(-1)).toBe(
      `Type /approve ${request.id} (Approve), /approve ${request.id} conversation (Approve for this conversation) or /deny ${request.id} (Deny).`,
    );

    type(`/approve ${request.id}`);
    await until(() => printed.find((p) => p === "Approved. The bot goes on."));
    type(`/deny ${request.id}`);
    await until(() =>
      printed.find((p) => p === `${process.env.USER ?? "you"} already approved this.`),
    );
    expect(
      (await pipe.app.store.approvals.read(CONSOLE_ADDRESS, request.id)).decision,
    ).toMatchObject({ verdict: "approved", by: { user: CONSOLE_USER } });

    // The worker's one edit of the request is its outcome: the terminal prints it.
    await pipe.app.outbox.edit(CONSOLE_ADDRESS, ref, "Approved by you: send_message.");
    await until(() => printed.find((p) => p === "Approved by you: send_message."));
  });
});

describe("a terminal turn that calls a tool under ask", () => {
  it("prints the request with the commands to type; /approve runs the tool once and the answer follows", async () => {
    const counter = connectRedis();
    open.push(async () => counter.disconnect());
    const prefix = uniquePrefix("console-ask");
    const { pipe, type, printed } = await startTerminal({
      prefix,
      worker: true,
      tools: [deployTool(counter, prefix)],
    });
    pipe.fake.script(
      { toolCalls: [{ id: "call_deploy", name: "deploy", arguments: { env: "prod" } }] },
      { content: "Deployed to prod." },
    );
    type("deploy prod");
    const wait = await parkedWait(pipe.app.redis, pipe.app.store, CONSOLE_ADDRESS);
    const request = await until(() => printed.find((p) => p.startsWith("Approval needed")));
    expect(request).toContain(`Type /approve ${wait.id} (Approve)`);
    expect(await deployRuns(counter, prefix)).toBe(0);

    type(`/approve ${wait.id}`);
    await until(() => printed.find((p) => p === "Deployed to prod."));
    expect(printed).toContain("Approved. The bot goes on.");
    expect(printed.some((p) => /^Approved by .+: deploy\.$/.test(p))).toBe(true);
    expect(await deployRuns(counter, prefix)).toBe(1);
  });
});
