import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Private Redis and Postgres for this run (see test/services/); suites share them, each under
    // its own key prefix / schema.
    globalSetup: ["test/services/global-setup.ts"],
    fileParallelism: true,
    // Performance hints would otherwise print after the summary; the last lines of a run must be
    // the pass/fail totals that CI logs are read for.
    experimental: { diagnostics: false },
  },
});
