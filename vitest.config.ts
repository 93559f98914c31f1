import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: {
    // Tests run against the workspace's sources, with no build step in between.
    conditions: ["@coffer/source"],
  },
  ssr: {
    resolve: {
      conditions: ["@coffer/source"],
    },
  },
  test: {
    include: ["{core,adapters,hosts,test,examples}/*/src/**/*.test.ts"],
    // Performance targets live in benchmarks (`pnpm bench`), never in timed unit tests.
    benchmark: { include: ["{core,adapters,hosts,test,examples}/*/{src,bench}/**/*.bench.ts"] },
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Postgres and Redis suites share one server each; keep files from starving a 2-core machine.
    maxWorkers: 2,
  },
})
