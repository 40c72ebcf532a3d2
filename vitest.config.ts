import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The chaos suite kills processes on a timetable: it runs alone (test/chaos/vitest.config.ts).
    exclude: [...configDefaults.exclude, "test/chaos/**"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
