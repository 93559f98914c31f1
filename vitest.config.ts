import { defineConfig } from "vitest/config"

const sources = "{core,adapters,hosts,test,examples}/*/src/**/*.test.ts"
const e2e = "test/e2e/src/**/*.test.ts"
// Benchmarks run once, in the unit project; without an include of their own the end-to-end projects would
// pick every benchmark up again with vitest's default pattern.
const none = { include: ["test/e2e/src/no-benchmarks-here/*.bench.ts"] }
// End-to-end tests start hosts and run the built command dozens of times (a 1,000-key push and pull, a key
// rotation while serving); on a shared 2-core machine the longest need more than the unit tests' 20 s.
const E2E_TEST_TIMEOUT_MS = 60_000

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
      {
        extends: true,
        test: {
          name: "e2e-node",
          include: [e2e],
          env: { COFFER_E2E_HOST: "node" },
          testTimeout: E2E_TEST_TIMEOUT_MS,
          benchmark: none,
        },
      },
      // Browser files named `*.node.test.ts` run on Node only; the other browser files run the flows on both.
      {
        extends: true,
        test: {
          name: "e2e-bun",
          include: [e2e],
          exclude: ["test/e2e/src/**/*.node.test.ts", "**/node_modules/**"],
          env: { COFFER_E2E_HOST: "bun" },
          testTimeout: E2E_TEST_TIMEOUT_MS,
          benchmark: none,
        },
      },
    ],
  },
})
