import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Suites share the one local Redis and Postgres; each uses its own key prefix / schema.
    fileParallelism: true,
    // Performance hints would otherwise print after the summary; the last lines of a run must be
    // the pass/fail totals that CI logs are read for.
    experimental: { diagnostics: false },
  },
});
