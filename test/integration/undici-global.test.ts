import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);

it("loading undici for a tool or a download leaves Node's fetch and discord.js's undici 6 on a dispatcher of their own", async () => {
  const server = createServer((_req, res) => res.end("hello"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const { stdout } = await run(process.execPath, [
      "--import",
      "tsx",
      "test/support/undici-load.ts",
      url,
    ]);
    // On undici 7's Agent, discord.js's (undici 6) uploads go astray.
    expect(JSON.parse(stdout)).toEqual({
      undici7: false,
      viaUndici: "hello",
      viaNode: "hello",
      viaDiscordsUndici: "hello",
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
