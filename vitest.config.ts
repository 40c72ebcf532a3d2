import { configDefaults, defineConfig } from "vitest/config";
import { sourceAliases } from "./vitest.aliases.ts";

/**
 * Three projects, one run:
 *
 * - `unit` (test/unit/): the pure core and the parts tested without Redis or a
 *   Switchyard process. `npm run test:unit` runs it alone, for the edit-test loop.
 * - `integration` (test/integration/, test/e2e/, test/contract/): real Redis (the
 *   global setup finds or starts one), real BullMQ, processes, fake platforms.
 * - `integration-isolated`: the few integration files that need a process of their own.
 *
 * `npm test` runs both, the unit files first. On a 2-core machine vitest's default
 * is one file at a time; most integration files spend their time waiting (on a
 * child process starting, a fake platform, a worker's turn), so four run at
 * once: with three, both cores were busy 1.26 of 2 on average and the suite took
 * 310 s on a quiet machine. The unit files are CPU-bound: two at once.
 */
/**
 * Integration files that get a fresh process each:
 * - discord-upload and discord-tool-files drive discord.js REST's multipart uploads, which
 *   fail ("action is not a function" in undici's body) after other files have run in the
 *   same process (discord-tool-files timed out so in one full run of five);
 * - document-bombs measures this process's event loop (a bystander answered in under 2 s
 *   while a bomb is read), which another file's leftovers would skew.
 */
const ISOLATED = [
  "test/e2e/discord-upload.test.ts",
  "test/e2e/discord-tool-files.test.ts",
  "test/e2e/document-bombs.test.ts",
];

export default defineConfig({
  // The examples import the package by name, as a bot author's code does; here it is the source.
  resolve: { alias: sourceAliases },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          // These files keep no state between them: they share one module graph, imported
          // once per worker, instead of each file importing the package again (that import
          // was 98 of the lane's 294 s, and two thirds of its CPU time).
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          // The tested example's own tests run here too, against the source: the kit stays honest.
          include: ["test/**/*.test.ts", "examples/tested-bot/*.test.ts"],
          // The chaos suite kills processes on a timetable: it runs alone (test/chaos/vitest.config.ts).
          // Cluster and Sentinel tests start Redis deployments of their own: vitest.cluster.config.ts runs them.
          exclude: [
            ...configDefaults.exclude,
            "test/unit/**",
            "test/chaos/**",
            "test/topology/**",
            ...ISOLATED,
          ],
          globalSetup: ["test/support/global-setup.ts"],
          // As in the unit lane, the files share one module graph per worker: importing the
          // source again for every file cost about a third of the lane's CPU (72 s -> 52 s wall,
          // 42 s -> 30 s CPU, on 18 files). Each file still starts and stops its own servers,
          // Redis prefix and processes.
          isolate: false,
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration-isolated",
          include: ISOLATED,
          globalSetup: ["test/support/global-setup.ts"],
          // The same group runs in one pool of workers: vitest requires the same maxWorkers.
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
