/**
 * The Schemas dashboard rendering long lists in Chromium (`pnpm bench`; issue 13 "Quality": a list of 1,000
 * platforms and a list of 1,000 versions each render within 1 s). The built Node host runs in this process with
 * the built dashboard; 1,000 platforms and one platform with 1,000 versions are created over HTTP; each benchmark
 * opens the page in a signed-in tab and waits for its 1,000th row. The figures are printed with the target beside
 * them, and a median over the target fails the run once both are measured.
 */
import type { Page } from "playwright-core"
import { bench, describe } from "vitest"
import { type BrowserScene, median, post, startScene } from "./browserBench.js"

const COUNT = 1_000
const TARGET_MS = 1_000

interface Scene extends BrowserScene {
  readonly page: Page
}

let scene: Promise<Scene> | undefined
const prepare = () => {
  scene ??= (async () => {
    const started = await startScene("schemas")
    const { base, cookie } = started
    const kinds = ["ios", "android", "web", "service", "custom"]
    for (let start = 0; start < COUNT; start += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, offset) => {
          const index = start + offset
          const body = { name: `platform-${index}`, versions: ["1.0.0", "1.1.0"], kind: kinds[index % 5] }
          return post(base, `/api/platform-${index}`, body, cookie)
        }),
      )
    }
    const versions = Array.from({ length: COUNT }, (_, index) =>
      index % 10 === 0 ? `${index}.0.0-rc.1` : `${Math.floor(index / 100)}.${index % 100}.0+b.${index}`,
    )
    await post(base, "/api/many", { name: "many", versions }, cookie)
    const { page } = await started.open()
    return { ...started, page }
  })()
  return scene
}

const figures: Record<string, Array<number>> = {}
/** Targets missed; reported once everything is measured and closed, so that one slow list does not hide the other. */
const missed: Array<string> = []

/** Opens `path` and waits for its 1,000th row; the time from the request to that row. */
const render = async (label: string, path: string, rows: string) => {
  const { page, base } = await prepare()
  const began = performance.now()
  await page.goto(`${base}${path}`)
  await page
    .locator(rows)
    .nth(COUNT - 1)
    .waitFor({ timeout: 10_000 })
  const elapsed = performance.now() - began
  const runs = figures[label] ?? []
  runs.push(elapsed)
  figures[label] = runs
}

const options = (label: string) => ({
  time: 0,
  iterations: 8,
  warmupIterations: 1,
  setup: (_task: unknown, mode: string) => {
    if (mode === "run") figures[label] = []
  },
  teardown: (_task: unknown, mode: string) => {
    if (mode !== "run") return
    const value = median(figures[label]!)
    console.log(
      `[dashboard] ${label}: median ${value.toFixed(0)} ms over ${figures[label]!.length} loads; target ≤ ${TARGET_MS} ms`,
    )
    if (value > TARGET_MS) missed.push(`${label}: median ${value.toFixed(0)} ms is over ${TARGET_MS} ms`)
  },
})

describe("dashboard lists in Chromium", () => {
  bench(
    "platform list of 1,000 platforms",
    () => render("platforms", "/platforms", "table tbody tr"),
    options("platforms"),
  )
  bench(
    "version list of 1,000 versions",
    () => render("versions", "/platforms/many", "table tbody tr"),
    options("versions"),
  )
  bench(
    "close",
    async () => {
      await (await prepare()).close()
      if (missed.length > 0) throw new Error(missed.join("; "))
    },
    { time: 0, iterations: 1, warmupIterations: 0 },
  )
})
