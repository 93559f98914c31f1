/**
 * The Secrets grid rendering 1,000 keys × 3 environments in Chromium (`pnpm bench`; issue 12 "Quality": within
 * 1 s on this machine). The built Node host runs in this process with the built app; one project gets 1,000 keys
 * in each of development, staging and production (3,000 secrets, over HTTP); each run opens the project's grid
 * in a signed-in tab and waits for its 1,000th row with its last cell drawn. The median is printed beside the
 * target, and a median over the target fails the run.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadSettings, type Running, serve } from "@coffer/node"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { bench, describe } from "vitest"

const KEYS = 1_000
const ENVIRONMENTS = ["development", "staging", "production"] as const
const TARGET_MS = 1_000
const PARALLEL = 50

interface Scene {
  readonly running: Running
  readonly base: string
  readonly slug: string
  readonly context: BrowserContext
  readonly page: Page
  readonly directory: string
}

const post = async (base: string, path: string, body: unknown, cookie?: string) => {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}`)
  return response
}

let scene: Promise<Scene> | undefined
const prepare = () => {
  scene ??= (async () => {
    const directory = mkdtempSync(join(tmpdir(), "coffer-grid-bench-"))
    const settings = loadSettings({
      COFFER_ENV: "development",
      COFFER_DATABASE_URL: `sqlite:${join(directory, "bench.db")}`,
      COFFER_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
      COFFER_SECRETS_PORT: "0",
    })
    const running = await serve({ settings, services: ["secrets"], env: {}, log: () => {} })
    const base = running.listening.secrets!.url.replace(/\/$/, "")
    const login = await post(base, "/api/auth/dev-login", { email: "bench@example.com" })
    const [name, value] = login.headers.getSetCookie()[0]!.split(";")[0]!.split("=") as [string, string]
    const cookie = `${name}=${value}`
    const created = await post(base, "/api/projects", { name: "Grid bench" }, cookie)
    const { project } = (await created.json()) as { project: { slug: string } }
    const writes = ENVIRONMENTS.flatMap((environment, column) =>
      Array.from({ length: KEYS }, (_, index) => ({
        environment,
        key: `SERVICE_${String(index).padStart(4, "0")}_URL`,
        // Every third key is missing somewhere and some are empty, so the grid draws all three cell states.
        value: (index + column) % 7 === 0 ? "" : `https://${environment}.example/${index}`,
        skip: (index + column) % 3 === 0 && column > 0,
      })),
    ).filter((write) => !write.skip)
    for (let start = 0; start < writes.length; start += PARALLEL) {
      await Promise.all(
        writes
          .slice(start, start + PARALLEL)
          .map(({ environment, key, value }) =>
            post(base, `/api/projects/${project.slug}/environments/${environment}/secrets`, { key, value }, cookie),
          ),
      )
    }
    const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "coffer-bench-chromium-")), {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
      viewport: { width: 1440, height: 900 },
    })
    await context.addCookies([{ name, value, url: base }])
    const page = await context.newPage()
    return { running, base, slug: project.slug, context, page, directory }
  })()
  return scene
}

const runs: Array<number> = []

/** Opens the grid and waits for its 1,000th row's last cell; the time from the request to that cell. */
const render = async () => {
  const { page, base, slug } = await prepare()
  const began = performance.now()
  await page.goto(`${base}/projects/${slug}`)
  await page
    .locator("table.grid tbody tr")
    .nth(KEYS - 1)
    .locator("td")
    .nth(ENVIRONMENTS.length - 1)
    .waitFor({ timeout: 10_000 })
  runs.push(performance.now() - began)
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

describe("secrets grid in Chromium", () => {
  bench("grid of 1,000 keys × 3 environments", render, {
    time: 0,
    iterations: 8,
    warmupIterations: 1,
    setup: (_task, mode) => {
      if (mode === "run") runs.length = 0
    },
    teardown: (_task, mode) => {
      if (mode !== "run") return
      const value = median(runs)
      console.log(
        `[grid] 1,000 keys × 3: median ${value.toFixed(0)} ms over ${runs.length} loads; target ≤ ${TARGET_MS} ms`,
      )
      if (value > TARGET_MS) throw new Error(`grid: median ${value.toFixed(0)} ms is over ${TARGET_MS} ms`)
    },
  })
  bench(
    "close",
    async () => {
      const ready = await prepare()
      await ready.context.close()
      await ready.running.close(0)
      rmSync(ready.directory, { recursive: true, force: true })
    },
    { time: 0, iterations: 1, warmupIterations: 0 },
  )
})
