/**
 * What the browser benchmarks share (`grid.bench.ts`, `dashboard.bench.ts`): the built Node host in this
 * process on a throw-away SQLite file, a development login, Debian's Chromium (`/usr/bin/chromium`, never a
 * downloaded browser) signed in as that person, and the median the targets are judged on.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadSettings, type Running, serve } from "@coffer/node"
import { type BrowserContext, chromium, type Page } from "playwright-core"

export type Service = "secrets" | "schemas"

export interface BrowserScene {
  readonly running: Running
  /** The service's origin, without a trailing slash. */
  readonly base: string
  /** The signed-in person's `cookie` header. */
  readonly cookie: string
  /** A signed-in tab in Chromium, opened by `openBrowser`. */
  readonly open: () => Promise<{ readonly context: BrowserContext; readonly page: Page }>
  /** Closes the browser (if opened), the host and its database. */
  readonly close: () => Promise<void>
}

/** A POST with a JSON body that must succeed. */
export const post = async (base: string, path: string, body: unknown, cookie?: string) => {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}`)
  return response
}

/** Starts `service` on a free port in development mode and signs `bench@example.com` in. */
export const startScene = async (service: Service): Promise<BrowserScene> => {
  const directory = mkdtempSync(join(tmpdir(), `coffer-${service}-bench-`))
  const port = service === "secrets" ? "COFFER_SECRETS_PORT" : "COFFER_SCHEMAS_PORT"
  const settings = loadSettings({
    COFFER_ENV: "development",
    COFFER_DATABASE_URL: `sqlite:${join(directory, "bench.db")}`,
    COFFER_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
    // The host runs in this process: its line per request (thousands while seeding) would bury the figures.
    COFFER_LOG_LEVEL: "warn",
    [port]: "0",
  })
  const running = await serve({ settings, services: [service], env: {}, log: () => {} })
  const base = running.listening[service]!.url.replace(/\/$/, "")
  const page = await fetch(`${base}/`)
  if (!(page.headers.get("content-type") ?? "").startsWith("text/html")) {
    throw new Error("the web app is not built: run `pnpm build` (or `node hosts/web/scripts/build.mjs`) first")
  }
  const login = await post(base, "/api/auth/dev-login", { email: "bench@example.com" })
  const [name, value] = login.headers.getSetCookie()[0]!.split(";")[0]!.split("=") as [string, string]
  let browser: Promise<BrowserContext> | undefined
  return {
    running,
    base,
    cookie: `${name}=${value}`,
    open: async () => {
      browser ??= (async () => {
        const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "coffer-bench-chromium-")), {
          executablePath: "/usr/bin/chromium",
          headless: true,
          args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
          viewport: { width: 1440, height: 900 },
        })
        await context.addCookies([{ name, value, url: base }])
        return context
      })()
      const context = await browser
      return { context, page: await context.newPage() }
    },
    close: async () => {
      await (await browser)?.close()
      await running.close(0)
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

/** The middle of `values` (the upper one of an even count), which the targets are judged on. */
export const median = (values: ReadonlyArray<number>) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
