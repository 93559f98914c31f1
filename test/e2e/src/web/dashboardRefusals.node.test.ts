/**
 * Every refusal appears in the dashboard where the person acted (issue 13 §7), in Chromium against the built
 * Node host: 400 (a development login's group too long), 401 (the session ended while the person worked: sign in
 * and come back), 403 (creating a platform whose name belongs to other groups), 404 (a platform deleted while
 * open), 409 (a taken name and a blocked deletion, in `dashboardPlatforms.test.ts`), 429 with its wait, and 503
 * (the database cut off behind a proxy while the page is open). Node only: the Bun host runs the same pages in
 * the other dashboard files.
 */
import { hasPostgres } from "@coffer/contract"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, start } from "../host.js"
import { useBrowser } from "./browser.js"
import { schemasAs, seedPlatforms, signedIn, unique } from "./dashboardApi.js"
import { useService } from "./service.js"

const browser = useBrowser()

describe("refusals where the person acted", () => {
  let host: Host
  let base: string
  beforeAll(async () => {
    host = await start({ args: ["serve", "--only", "schemas"], env: { OIDC_PLATFORM_EDITORS: "team-ios:mobile" } })
    base = host.schemas!
  })
  afterAll(() => host?.stop())

  it("400: says what was wrong with the development login", async () => {
    const page = await browser.open(`${base}/sign-in`)
    await page.getByLabel("E-mail").fill("long@example.com")
    await page.getByLabel("Groups").fill("g".repeat(300))
    await page.getByRole("button", { name: "Sign in as this e-mail" }).click()
    const alert = page.getByRole("form", { name: "Development login" }).getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/groups/)
    expect(new URL(page.url()).pathname).toBe("/sign-in")
  })

  it("401: sends the person to sign in when the session ended, then back to where they were", async () => {
    const email = `ended-${Date.now()}@example.com`
    const name = unique("ended")
    await seedPlatforms(await schemasAs(base, email), { [name]: ["1.0.0"] })
    const page = await signedIn(browser, base, email, `/platforms/${name}`)
    await page.getByLabel("Version", { exact: true }).fill("1.1.0")
    // The session ends elsewhere (another tab signs out).
    await page.evaluate(() =>
      fetch("/api/auth/logout", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }),
    )
    await page.getByRole("button", { name: "Add version" }).click()
    await page.waitForURL(/\/sign-in\?returnTo=/)
    expect(new URL(page.url()).searchParams.get("returnTo")).toBe(`/platforms/${name}`)
    await page.getByLabel("E-mail").fill(email)
    await page.getByRole("button", { name: "Sign in as this e-mail" }).click()
    await page.waitForURL(`${base}/platforms/${name}`)
    await page.getByRole("form", { name: "Add a version" }).waitFor()
  })

  it("403: explains a platform name that belongs to other groups", async () => {
    const page = await signedIn(browser, base, `refused-${Date.now()}@example.com`, "/platforms")
    await page.getByLabel("Platform name").fill("team-ios")
    await page.getByRole("button", { name: "Create platform" }).click()
    const alert = page.getByRole("form", { name: "Create a platform" }).getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toBe('Not allowed: You do not have permission to change platform "team-ios"')
  })

  it("404: says the platform is gone when it was deleted while open", async () => {
    const email = `gone-${Date.now()}@example.com`
    const api = await schemasAs(base, email)
    const name = unique("gone")
    await seedPlatforms(api, { [name]: ["1.0.0"] })
    const page = await signedIn(browser, base, email, `/platforms/${name}`)
    await page.getByLabel("Version", { exact: true }).fill("2.0.0")
    await api.call("DELETE", `/api/_ui/v1/platforms/${name}`)
    await page.getByRole("button", { name: "Add version" }).click()
    const alert = page.getByRole("form", { name: "Add a version" }).getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toBe(`Platform "${name}" was not found`)
    await page.goto(`${base}/platforms/${name}/versions/1.0.0`)
    await page.getByText(`Platform "${name}" was not found`).waitFor()
    // The way back is the list, not the missing platform's page.
    expect(await page.getByRole("link", { name: `Back to ${name}` }).count()).toBe(0)
    await page.getByRole("main").getByRole("link", { name: "All platforms" }).waitFor()
    await page.goto(`${base}/platforms/${name}`)
    await page.getByRole("heading", { name: "Platform not found" }).waitFor()
  })
})

describe("429", () => {
  let limited: Host
  beforeAll(async () => {
    limited = await start({ args: ["serve", "--only", "schemas"], env: { COFFER_RATE_LIMIT: "2" } })
  })
  afterAll(() => limited?.stop())

  it("says how long to wait", async () => {
    for (const email of ["a@example.com", "b@example.com"]) await schemasAs(limited.schemas!, email)
    const page = await browser.open(`${limited.schemas}/sign-in`)
    await page.getByLabel("E-mail").fill("c@example.com")
    await page.getByRole("button", { name: "Sign in as this e-mail" }).click()
    const alert = page.getByRole("form", { name: "Development login" }).getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/^Too many attempts\. Wait \d+ seconds, then try again\.$/)
  })
})

describe.runIf(await hasPostgres())("503", () => {
  const outage = useService("schemas", "postgres behind a proxy")

  it("says the service is unavailable while the database is cut off, and works again after", async () => {
    const base = outage.base
    const page = await signedIn(browser, base, "outage@example.com", "/platforms")
    const name = unique("outage")
    await page.getByLabel("Platform name").fill(name)
    const list = await browser.open(`${base}/platforms`)
    await list.getByText("There are no platforms yet.", { exact: false }).waitFor()
    outage.proxy.cut()
    try {
      await page.getByRole("button", { name: "Create platform" }).click()
      const alert = page.getByRole("form", { name: "Create a platform" }).getByRole("alert")
      await alert.waitFor({ timeout: 15_000 })
      expect(await alert.textContent()).toMatch(
        /^The service is unavailable right now \(.+\)\. Try again in a moment\.$/,
      )
      // The list of platforms, opened now, cannot load: it says so, with a way to try again.
      const nav = list.getByRole("navigation", { name: "Main" })
      await nav.getByRole("link", { name: "API tokens" }).click()
      await nav.getByRole("link", { name: "Platforms" }).click()
      await list.getByRole("button", { name: "Try again" }).waitFor({ timeout: 15_000 })
    } finally {
      outage.proxy.restore()
    }
    await list.getByRole("button", { name: "Try again" }).click()
    await list.getByText("There are no platforms yet.", { exact: false }).waitFor({ timeout: 15_000 })
    await page.getByRole("button", { name: "Create platform" }).click()
    await page.waitForURL(`${base}/platforms/${name}`, { timeout: 15_000 })
  }, 40_000)
})
