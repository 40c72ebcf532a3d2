import { defineConfig } from "vitest/config";
import { sourceAliases } from "../../vitest.aliases.ts";

/**
 * The chaos suite runs on its own: its scenarios start real processes and
 * kill them, so they run one file at a time, never next to the other tests
 * (which would steal the two cores they time their kills on).
 */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ["test/chaos/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
