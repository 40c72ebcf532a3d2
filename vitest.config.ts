import { configDefaults, defineConfig } from "vitest/config";
import { sourceAliases } from "./vitest.aliases.ts";

/**
 * Two projects, one run:
 *
 * - `unit` (test/unit/): the pure core and the parts tested without Redis or a
 *   Switchyard process. `npm run test:unit` runs it alone, for the edit-test loop.
 * - `integration` (test/integration/, test/e2e/, test/contract/): real Redis (the
 *   global setup finds or starts one), real BullMQ, processes, fake platforms.
 *
 * `npm test` runs both, the unit files first. On a 2-core machine vitest's default
 * is one file at a time; most integration files spend their time waiting (on a
 * child process starting, a fake platform, a worker's turn), so three run at
 * once, which keeps both cores busy. The unit files are CPU-bound: two at once.
 */
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
          exclude: [...configDefaults.exclude, "test/unit/**", "test/chaos/**", "test/topology/**"],
          globalSetup: ["test/support/global-setup.ts"],
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
