/**
 * The browser harness: Debian's Chromium (`/usr/bin/chromium`, never a downloaded browser) driven through
 * `playwright-core`, headless, with a fresh profile per suite and no cookies
 * left from the previous test. Every page it opens records what must never
 * happen: console errors, uncaught page errors and content-security-policy violations; `useBrowser` fails the
 * test that produced any. Failed API answers the browser logs ("Failed to load resource: … status of 409") are
 * not problems: refusals are part of the flows under test, and the page shows each where the person acted.
 *
 * Screenshots go to `test/e2e/screenshots/` (gitignored), for looking at layouts at 375 and 1440 px.
 *
 * `COFFER_E2E_API_JITTER_MS=600` holds every `/api/` request back by a random 0 to 600 ms, so that the parts of a
 * page fetched apart arrive in any order: a test that reads one part after waiting for another fails then, rather
 * than now and again in CI. Off unless set.
 */
import { mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type BrowserContext, chromium, type Page, type Request } from "playwright-core"
import { afterAll, afterEach, beforeAll, expect } from "vitest"

export const CHROMIUM = "/usr/bin/chromium"
export const SCREENSHOTS = resolve(import.meta.dirname, "../../screenshots")

const FAILED_RESPONSE = /^Failed to load resource: the server responded with a status of \d{3}/

/** How long a wait for the page lasts: playwright's waits (the context's default) and `expect.poll` alike. */
export const WAIT_MS = 8_000

/**
 * Options for `expect.poll` over page state (vitest's own default gives up after 1 s, too soon on a busy machine):
 * `await expect.poll(() => locator.count(), POLL).toBe(2)` retries the read until it holds or the wait is over.
 */
export const POLL = { timeout: WAIT_MS, interval: 50 } as const

export interface Browser {
  /** A new tab at `url`, watched for problems; 1440 × 900 unless a viewport is given. */
  readonly open: (url: string, viewport?: { width: number; height: number }) => Promise<Page>
  /** The problems seen so far (console errors, page errors, CSP violations). */
  readonly problems: () => ReadonlyArray<string>
  /** A full-page screenshot named `<name>.png` in `SCREENSHOTS`. */
  readonly screenshot: (page: Page, name: string) => Promise<string>
  readonly context: () => BrowserContext
  /**
   * A new tab at `url` in a second browser (its own cookies), for a second person beside the first; launched
   * on first use and watched like the first.
   */
  readonly openOther: (url: string, viewport?: { width: number; height: number }) => Promise<Page>
}

/**
 * Holds the page's requests to `url` (as `page.route` takes it) back, as a slow network would, until the function
 * returned is called; `only` picks which of them wait (the others go at once). The route stays until
 * `page.unroute(url)` or the page closes, letting every later request through once released.
 */
export const holdBack = async (
  page: Page,
  url: string | RegExp,
  only: (request: Request) => boolean = () => true,
): Promise<() => void> => {
  let release = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  await page.route(url, async (route) => {
    if (only(route.request())) await released
    await route.continue()
  })
  return release
}

const launch = async (): Promise<BrowserContext> => {
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "coffer-chromium-")), {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
  })
  // Shorter than the test's own timeout, so a missing element fails with playwright's message.
  context.setDefaultTimeout(WAIT_MS)
  const jitter = Number(process.env.COFFER_E2E_API_JITTER_MS ?? 0)
  if (jitter > 0) {
    await context.route("**/api/**", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * jitter))
      await route.continue()
    })
  }
  await context.grantPermissions(["clipboard-read", "clipboard-write"])
  // CDP-injected, so the page's own policy does not apply to it; it reports violations of that policy.
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline"}`)
    })
  })
  return context
}

/** Launches Chromium for the suite and checks every test's pages for problems after it. */
export const useBrowser = (): Browser => {
  let browserContext: BrowserContext | undefined
  let problems: Array<string> = []
  const pages: Array<Page> = []
  let otherContext: Promise<BrowserContext> | undefined

  beforeAll(async () => {
    browserContext = await launch()
  })
  afterAll(async () => {
    await browserContext?.close()
    await (await otherContext)?.close()
  })
  afterEach(async (context) => {
    // A failed test leaves a picture of each of its pages behind, named after the test.
    if (context.task.result?.state === "fail") {
      mkdirSync(SCREENSHOTS, { recursive: true })
      const name = context.task.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 80)
      await Promise.all(
        pages.map((page, index) =>
          page.screenshot({ path: join(SCREENSHOTS, `failed-${name}-${index}.png`) }).catch(() => undefined),
        ),
      )
    }
    const seen = problems
    problems = []
    await Promise.all(pages.splice(0).map((page) => page.close()))
    // Each test starts signed out.
    await browserContext?.clearCookies()
    await (await otherContext)?.clearCookies()
    expect(seen, "console errors, page errors or CSP violations").toEqual([])
  })

  const watched = async (context: BrowserContext, url: string, viewport?: { width: number; height: number }) => {
    const page = await context.newPage()
    pages.push(page)
    if (viewport !== undefined) await page.setViewportSize(viewport)
    page.on("console", (message) => {
      if (message.type() === "error" && !FAILED_RESPONSE.test(message.text())) {
        problems.push(`console: ${message.text()}`)
      }
    })
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
    await page.goto(url)
    return page
  }

  return {
    open: async (url, viewport) => {
      const context = browserContext
      if (context === undefined) throw new Error("useBrowser: the browser is not running (call it at suite level)")
      return watched(context, url, viewport)
    },
    openOther: async (url, viewport) => {
      otherContext ??= launch()
      return watched(await otherContext, url, viewport)
    },
    problems: () => problems,
    screenshot: async (page, name) => {
      mkdirSync(SCREENSHOTS, { recursive: true })
      const path = join(SCREENSHOTS, `${name}.png`)
      await page.screenshot({ path, fullPage: true })
      return path
    },
    context: () => browserContext!,
  }
}
