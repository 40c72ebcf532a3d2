import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { SwitchyardConfig } from "../../src/core/config/index.ts";
import { type Hook, signGitHub, signHook } from "../../src/core/hooks/index.ts";
import { MAX_HOOK_BODY_BYTES } from "../../src/ingress/hook-endpoint.ts";
import { OPEN_DMS } from "../support/channels.ts";
import { ciHook, HOOK_SECRET, type HookServer, serveTestHooks } from "../support/hooks.ts";
import { type Pipeline, startPipeline } from "../support/pipeline.ts";
import { settle } from "../support/slack-harness.ts";

let pipe: Pipeline | undefined;
let server: HookServer | undefined;
afterEach(async () => {
  await server?.close();
  await pipe?.close();
  server = undefined;
  pipe = undefined;
});

const CONSOLE = {
  platform: "console",
  workspace: "local",
  channel: "terminal",
  kind: "group",
} as const;
const BODY = JSON.stringify({ summary: "lint failed" });

async function start(
  hooks: readonly Hook[] = [ciHook(CONSOLE, "alice")],
  config?: () => SwitchyardConfig,
  env?: Record<string, string>,
): Promise<{ pipe: Pipeline; server: HookServer }> {
  pipe = await startPipeline();
  server = await serveTestHooks(pipe, hooks, config, env);
  return { pipe, server };
}

/** A switchyard-signed request with anything changed. */
function signed(body: string | Buffer, headers: Record<string, string> = {}): RequestInit {
  const timestamp = Math.floor(Date.now() / 1000);
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-switchyard-timestamp": String(timestamp),
      "x-switchyard-delivery": "d-1",
      "x-switchyard-signature": signHook(HOOK_SECRET, timestamp, "d-1", bytes),
      ...headers,
    },
    body: bytes,
  };
}

async function call(url: string, init: RequestInit) {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

describe("POST /hooks/<name>", () => {
  it("answers 404 for a hook nobody declared, naming the fix", async () => {
    const { server } = await start();
    const answer = await call(server.url("nope"), signed(BODY));
    expect(answer).toMatchObject({ status: 404, body: { error: "unknown_hook" } });
    expect(answer.body.fix).toContain("hooks:");
  });

  it("answers 405 to anything but POST", async () => {
    const { server } = await start();
    const response = await fetch(server.url("ci-failed"));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("refuses a body over 1 MiB with 413 before reading it whole, and queues nothing", async () => {
    const { pipe, server } = await start();
    const big = Buffer.alloc(MAX_HOOK_BODY_BYTES + 1, 0x20);
    const answer = await call(server.url("ci-failed"), signed(big));
    expect(answer).toMatchObject({ status: 413, body: { error: "body_too_large" } });
    // Sent in chunks with no length declared: found while reading.
    const chunked = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(300 * 1024));
        controller.close();
      },
    });
    const streamed = await fetch(server.url("ci-failed"), {
      ...signed(""),
      body: chunked,
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    await settle(200);
    expect(pipe.fake.requests).toHaveLength(0);
  });

  it("refuses a body that is not JSON: 415 for another content type, 400 for broken JSON", async () => {
    const { server } = await start();
    const text = await call(
      server.url("ci-failed"),
      signed("lint failed", { "content-type": "text/plain" }),
    );
    expect(text).toMatchObject({ status: 415, body: { error: "not_json" } });
    expect(text.body.fix).toContain("application/json");
    const broken = await call(server.url("ci-failed"), signed("{summary:"));
    expect(broken).toMatchObject({ status: 400, body: { error: "not_json" } });
  });

  it("refuses with 403, and no turn, when the owner is not let into the target", async () => {
    const closed = () => ({
      ...OPEN_DMS,
      access: { ...OPEN_DMS.access, groups: "closed" as const },
    });
    const { pipe, server } = await start(undefined, closed);
    const answer = await call(server.url("ci-failed"), signed(BODY));
    expect(answer).toMatchObject({ status: 403, body: { error: "owner_refused" } });
    await settle(200);
    expect(pipe.fake.requests).toHaveLength(0);
  });

  it("answers 503 naming the variable when the secret is not set", async () => {
    const { server } = await start(undefined, undefined, {});
    const answer = await call(server.url("ci-failed"), signed(BODY));
    expect(answer).toMatchObject({ status: 503, body: { error: "secret_not_set" } });
    expect(answer.body.fix).toContain("HOOK_TEST_SECRET");
  });

  it("takes a GitHub delivery, and refuses the same body again under a new delivery id", async () => {
    const github: Hook = { ...ciHook(CONSOLE, "alice"), name: "github", signature: "github" };
    const { pipe, server } = await start([github]);
    pipe.fake.script({ content: "On it." });
    const githubCall = (delivery: string): RequestInit => ({
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "workflow_run",
        "x-github-delivery": delivery,
        "x-hub-signature-256": signGitHub(HOOK_SECRET, Buffer.from(BODY)),
      },
      body: BODY,
    });
    const first = await call(server.url("github"), githubCall("72d3162e-1"));
    expect(first).toMatchObject({ status: 202, body: { event: "hook:github:72d3162e-1" } });
    await pipe.posts(1);
    const again = await call(server.url("github"), githubCall("72d3162e-2"));
    expect(again).toMatchObject({ status: 409, body: { error: "replayed" } });
    await settle(200);
    expect(pipe.fake.requests).toHaveLength(1);
  });

  it("takes a GitLab call by its X-Gitlab-Token and Idempotency-Key, and refuses a wrong token", async () => {
    const gitlab: Hook = { ...ciHook(CONSOLE, "alice"), name: "gitlab", signature: "gitlab" };
    const { pipe, server } = await start([gitlab]);
    pipe.fake.script({ content: "Pipeline 77 failed in test." });
    const gitlabCall = (token: string): RequestInit => ({
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gitlab-event": "Pipeline Hook",
        "x-gitlab-token": token,
        "idempotency-key": "9c5e-77",
      },
      body: BODY,
    });
    const wrong = await call(server.url("gitlab"), gitlabCall("guess"));
    expect(wrong).toMatchObject({ status: 401, body: { error: "bad_signature" } });
    const right = await call(server.url("gitlab"), gitlabCall(HOOK_SECRET));
    expect(right).toMatchObject({ status: 202, body: { event: "hook:gitlab:9c5e-77" } });
    const [post] = await pipe.posts(1);
    expect(post?.text).toBe("Pipeline 77 failed in test.");
  });

  it("takes a delivery after a badly signed try of it: a refusal keeps nothing", async () => {
    const { pipe, server } = await start();
    pipe.fake.script({ content: "Looked." });
    const bad = await call(
      server.url("ci-failed"),
      signed(BODY, { "x-switchyard-signature": "sha256=00" }),
    );
    expect(bad.status).toBe(401);
    const good = await call(server.url("ci-failed"), signed(BODY));
    expect(good.status).toBe(202);
    const [post] = await pipe.posts(1);
    expect(post?.text).toBe("Looked.");
  });

  it("takes the call the docs' curl example makes, signed with openssl", async () => {
    const { pipe, server } = await start();
    pipe.fake.script({ content: "Checkout broke." });
    const doc = readFileSync(new URL("../../docs/operate/hooks.md", import.meta.url), "utf8");
    const script = /```sh\n([\s\S]*?openssl dgst[\s\S]*?)```/.exec(doc)?.[1];
    expect(script).toBeDefined();
    const run = (script as string).replace(/^URL=.*$/m, `URL=${server.url("ci-failed")}`);
    const { stdout } = await promisify(execFile)("bash", ["-c", run], {
      env: { PATH: process.env.PATH, CI_HOOK_SECRET: HOOK_SECRET },
    });
    expect(JSON.parse(stdout)).toEqual({
      accepted: true,
      hook: "ci-failed",
      delivery: "build-812",
      event: "hook:ci-failed:build-812",
    });
    const [post] = await pipe.posts(1);
    expect(post?.text).toBe("Checkout broke.");
    expect(pipe.fake.requests[0]?.body.messages.at(-1).content).toContain(
      "\n3 tests failed in checkout\n",
    );
  });
});
