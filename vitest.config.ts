import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The chaos suite kills processes on a timetable: it runs alone (test/chaos/vitest.config.ts).
    // Cluster and Sentinel tests start Redis deployments of their own: vitest.cluster.config.ts runs them.
    exclude: [...configDefaults.exclude, "test/chaos/**", "test/topology/**"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
