import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Cluster and Sentinel tests start Redis deployments of their own: vitest.cluster.config.ts runs them.
    exclude: ["test/topology/**", "**/node_modules/**"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
