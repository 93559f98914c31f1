import { defineConfig } from "vitest/config"

const sources = "{core,adapters,hosts,test,examples}/*/src/**/*.test.ts"
const e2e = "test/e2e/src/**/*.test.ts"
// Benchmarks run once, in the unit project; without an include of their own the end-to-end projects would
// pick every benchmark up again with vitest's default pattern.
const none = { include: ["test/e2e/src/no-benchmarks-here/*.bench.ts"] }

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
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Postgres and Redis suites share one server each; keep files from starving a 2-core machine.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [sources],
          exclude: [e2e, "**/node_modules/**"],
          // Performance targets live in benchmarks (`pnpm bench`), never in timed unit tests.
          benchmark: { include: ["{core,adapters,hosts,test,examples}/*/{src,bench}/**/*.bench.ts"] },
        },
      },
      // The same end-to-end files against each host: the built Node command and the built Bun command.
      { extends: true, test: { name: "e2e-node", include: [e2e], env: { COFFER_E2E_HOST: "node" }, benchmark: none } },
      // Browser files named `*.node.test.ts` run on Node only; the other browser files run the flows on both.
      {
        extends: true,
        test: {
          name: "e2e-bun",
          include: [e2e],
          exclude: ["test/e2e/src/**/*.node.test.ts", "**/node_modules/**"],
          env: { COFFER_E2E_HOST: "bun" },
          benchmark: none,
        },
      },
    ],
  },
})
