import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  // The examples import the package by name, as a bot author's code does; here it is the source.
  resolve: {
    alias: [
      {
        find: /^switchyard$/,
        replacement: fileURLToPath(new URL("src/index.ts", import.meta.url)),
      },
    ],
  },
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
