import { defineConfig } from "vitest/config";
import { sourceAliases } from "./vitest.aliases.ts";

/**
 * The integration suite, one e2e per platform, and the topology tests
 * (test/topology/: Sentinel failover, cluster startup checks), against a local
 * 3-master Redis Cluster that the global setup starts and stops
 * (REDIS_TOPOLOGY=cluster). `npm test` keeps running everything against a
 * single Redis; this is a second, bounded run, not a doubling of it.
 *
 *   npx vitest run --config vitest.cluster.config.ts
 *
 * The tests that measure each master's share of the traffic, or start Redis
 * processes of their own, run after the rest, one file at a time: other
 * files' traffic on the same cluster would blur the measurement.
 */
process.env.REDIS_TOPOLOGY = "cluster";

const ALONE = ["test/integration/concurrency.test.ts", "test/topology/**/*.test.ts"];

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "cluster",
          include: [
            "test/integration/{pipeline,shards,crash,crash-effects,crash-streaming,resume-count,shutdown,outbound,model-limits-pipeline}.test.ts",
            "test/integration/budget-reservations.test.ts",
            "test/integration/{reminders,reminders-pipeline,memory-tools,skills-pipeline}.test.ts",
            "test/integration/store-{intent,scope,history,turn,keys}.test.ts",
            "test/e2e/{slack,discord,telegram,console}.test.ts",
          ],
          // Two cores, shared: each file starts workers of its own on the same cluster.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "cluster-alone",
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
