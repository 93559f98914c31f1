/**
 * A project's audit log (issue 12 §10) in Chromium against the built host (`e2e-node` and `e2e-bun`): newest
 * first, fifty entries a page, each with action, target, environment, person, address and time; Older and
 * Newer move between pages, and Back returns to the page before. The filter bar narrows the log by action, key
 * and environment, kept in the address, and a secret's history links to its trail. Fails on a console error, a
 * page error or a CSP violation (`browser.ts`).
 */
import { describe, expect, it } from "vitest"
import { apiAs, seedProject, signInPage } from "./api.js"
import { POLL, useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("secrets")

const WRITES = 60

describe("audit log", () => {
  it("pages newest first with action, target, environment, person, address and time", async () => {
    const email = `audit-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Audit ${Date.now()}`)
    for (let index = 1; index <= WRITES; index++) {
      // Entries in one millisecond have no order among them (the log orders by time): keep the writes apart.
      await new Promise((resolve) => setTimeout(resolve, 2))
      await api.call("POST", `/api/projects/${slug}/environments/staging/secrets`, {
        key: `KEY_${String(index).padStart(2, "0")}`,
        value: `v${index}`,
      })
    }
    // 1 project.created + 60 secret.created: two pages of 50.
    const path = `/projects/${slug}/audit`
    const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}${path}`)
    const table = page.getByRole("table", { name: /page 1, newest first/ })
    await table.waitFor()
    const rows = table.locator("tbody tr")
    expect(await rows.count()).toBe(50)
    const newest = (await rows.first().locator("td").allTextContents()).map((text) => text.trim())
    expect(newest.slice(1)).toEqual(["Created secret", "KEY_60", email, "staging", "127.0.0.1"])
    expect(Date.parse(new Date(newest[0]!).toISOString())).not.toBeNaN()
    expect(await rows.nth(49).locator("td").nth(2).textContent()).toBe("KEY_11")
    expect(await page.getByRole("button", { name: "Newer" }).isDisabled()).toBe(true)

    // Pressed from the keyboard, Older keeps the focus on the last page, where it can do nothing more.
    const older = page.getByRole("button", { name: "Older" })
    await older.focus()
    await page.keyboard.press("Enter")
    await page.waitForURL(`${served.base}${path}?page=2`)
    const second = page.getByRole("table", { name: /page 2, newest first/ }).locator("tbody tr")
    await second.first().waitFor()
    expect(await second.count()).toBe(11)
    expect(await second.first().locator("td").nth(2).textContent()).toBe("KEY_10")
    expect((await second.last().locator("td").allTextContents()).slice(1, 4)).toEqual([
      "Created the project",
      slug,
      email,
    ])
    await expect.poll(() => older.getAttribute("aria-disabled"), POLL).toBe("true")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Older")
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Older")
    expect(page.url()).toBe(`${served.base}${path}?page=2`)
    // Once the focus moves on, it is disabled like any impossible action.
    await page.keyboard.press("Shift+Tab")
    await expect.poll(() => older.evaluate((button) => (button as HTMLButtonElement).disabled), POLL).toBe(true)

    await page.goBack()
    await page.getByRole("table", { name: /page 1, newest first/ }).waitFor()
    await page.getByRole("button", { name: "Older" }).click()
    await page.getByRole("button", { name: "Newer" }).click()
    await page.waitForURL(`${served.base}${path}`)
    // The table names the page whose rows it holds, so waiting for "page 1" waits for page 1's rows.
    const again = page.getByRole("table", { name: /page 1, newest first/ })
    await again.waitFor()
    expect(await again.locator("tbody tr").count()).toBe(50)

    // A page past the end says so and leads back to the newest entries.
    await page.goto(`${served.base}${path}?page=9`)
    await page.getByText("No entries on this page: the log is shorter.").waitFor()
    await page.getByRole("button", { name: "Go to the newest entries" }).click()
    await page.waitForURL(`${served.base}${path}`)
    await page.getByRole("table", { name: /page 1, newest first/ }).waitFor()
  })

  it("filters by action, key and environment in the address, pages what matches, and opens a secret's trail", async () => {
    const email = `audit-filters-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Audit filters ${Date.now()}`, {
      staging: { DB_URL: "one", API_TOKEN: "t" },
      production: { DB_URL: "p" },
    })
    const staging = `/api/projects/${slug}/environments/staging/secrets`
    await api.call("POST", staging, { key: "DB_URL", value: "two" })
    await api.call("GET", `${staging}/DB_URL/versions/1`)
    for (let index = 0; index < 52; index++) await api.call("GET", `${staging}/DB_URL`)
    await api.call("GET", `${staging}/json`)
    // DB_URL's trail: 2 created, 1 updated, 1 old version read, 52 reads: a page of 50 and one of 6.

    const path = `/projects/${slug}/audit`
    const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}${path}`)
    await page.getByRole("table", { name: /page 1, newest first/ }).waitFor()
    const cells = (column: number) => page.locator(`table tbody tr td:nth-child(${column})`).allTextContents()
    const address = () => new URL(page.url()).search

    await page.getByLabel("Action", { exact: true }).selectOption("secrets.exported")
    await page.getByRole("button", { name: "Filter", exact: true }).click()
    await expect.poll(address, POLL).toBe("?action=secrets.exported")
    await expect.poll(() => cells(3), POLL).toEqual(["JSON"])
    expect(await cells(2)).toEqual(["Exported"])
    // Read out for the page; the form the service records (and filters by) is the cell's title.
    expect(await page.locator("table tbody tr td:nth-child(3)").first().getAttribute("title")).toBe("json")

    // A key with an action none of its records has: nothing matches, and the page offers to clear the filters.
    await page.getByLabel("Secret key", { exact: true }).fill("DB_URL")
    await page.getByLabel("Secret key", { exact: true }).press("Enter")
    await expect.poll(address, POLL).toBe("?action=secrets.exported&key=DB_URL")
    await page.getByText("No entries match the filters.").waitFor()
    await page.getByRole("button", { name: "Clear the filters" }).click()
    await expect.poll(address, POLL).toBe("")
    await expect.poll(() => page.getByLabel("Secret key", { exact: true }).inputValue(), POLL).toBe("")
    await expect.poll(async () => (await cells(3)).length, POLL).toBe(50)

    await page.getByLabel("Secret key", { exact: true }).fill("DB_URL")
    await page.getByRole("button", { name: "Filter", exact: true }).click()
    await expect.poll(address, POLL).toBe("?key=DB_URL")
    const firstPage = page.getByRole("table", { name: /filtered, page 1, newest first/ })
    await firstPage.waitFor()
    await expect.poll(async () => (await cells(3)).length, POLL).toBe(50)
    expect(new Set(await cells(3))).toEqual(new Set(["DB_URL"]))

    await page.getByRole("button", { name: "Older" }).click()
    await expect.poll(address, POLL).toBe("?key=DB_URL&page=2")
    await page.getByRole("table", { name: /filtered, page 2, newest first/ }).waitFor()
    await expect
      .poll(() => cells(3), POLL)
      .toEqual(["DB_URL", "DB_URL", "DB_URL, version 1", "DB_URL", "DB_URL", "DB_URL"])
    expect((await cells(2)).slice(-3)).toEqual(["Updated secret", "Created secret", "Created secret"])
    expect(await page.getByRole("button", { name: "Older" }).isDisabled()).toBe(true)

    // Another filter starts again from the first page.
    await page.getByLabel("Environment", { exact: true }).selectOption("production")
    await page.getByRole("button", { name: "Filter", exact: true }).click()
    await expect.poll(address, POLL).toBe("?key=DB_URL&environment=production")
    await expect.poll(() => cells(5), POLL).toEqual(["production"])
    expect(await cells(2)).toEqual(["Created secret"])

    // Back returns to the view before, the form with it.
    await page.goBack()
    await expect.poll(address, POLL).toBe("?key=DB_URL&page=2")
    await expect.poll(async () => (await cells(3)).length, POLL).toBe(6)
    await expect.poll(() => page.getByLabel("Environment", { exact: true }).inputValue(), POLL).toBe("")
    expect(await page.getByLabel("Secret key", { exact: true }).inputValue()).toBe("DB_URL")

    // A secret's history links to its trail in its environment.
    await page.goto(`${served.base}/projects/${slug}/environments/staging/secrets/DB_URL/history`)
    await page.getByRole("link", { name: "Audit trail of DB_URL in staging" }).click()
    await expect.poll(address, POLL).toBe("?key=DB_URL&environment=staging")
    await expect.poll(() => page.getByLabel("Secret key", { exact: true }).inputValue(), POLL).toBe("DB_URL")
    await expect.poll(() => page.getByLabel("Environment", { exact: true }).inputValue(), POLL).toBe("staging")
    await expect.poll(async () => (await cells(3)).length, POLL).toBe(50)
    expect(new Set(await cells(5))).toEqual(new Set(["staging"]))
  })

  it("adds one history entry per filter applied, none for arrow keys through a select, nor for Filter or Enter on the view already shown", async () => {
    const email = `audit-history-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Audit history ${Date.now()}`, { staging: { DB_URL: "one" } })
    const path = `/projects/${slug}/audit`
    const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}${path}`)
    await page.getByRole("table", { name: /page 1, newest first/ }).waitFor()
    const address = () => new URL(page.url()).search
    const entries = () => page.evaluate(() => history.length)
    const start = await entries()

    // Arrow keys through the closed selects only pick: the log stays, and no history entry is added.
    const action = page.getByLabel("Action", { exact: true })
    await action.focus()
    for (let index = 0; index < 3; index++) await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowUp")
    expect(await action.inputValue()).toBe("project.deleted")
    await page.getByLabel("Environment", { exact: true }).focus()
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("ArrowUp")
    // Given the time a navigation would take, none came.
    await page.waitForTimeout(300)
    expect(address()).toBe("")
    expect(await entries()).toBe(start)
    // Filter applies the action picked (one entry); Filter again asks for the view already shown.
    await action.selectOption("secret.created")
    await page.getByRole("button", { name: "Filter", exact: true }).click()
    await expect.poll(address, POLL).toBe("?action=secret.created")
    await page.getByRole("button", { name: "Filter", exact: true }).click()
    const key = page.getByLabel("Secret key", { exact: true })
    await key.fill("DB_URL")
    await key.press("Enter")
    await expect.poll(address, POLL).toBe("?action=secret.created&key=DB_URL")
    await key.press("Enter")
    await page.getByRole("button", { name: "Filter", exact: true }).click()
    await page.getByRole("table", { name: /filtered, page 1, newest first/ }).waitFor()
    expect(await entries()).toBe(start + 2)

    // Each Back undoes one change.
    await page.goBack()
    await expect.poll(address, POLL).toBe("?action=secret.created")
    await page.goBack()
    await expect.poll(address, POLL).toBe("")
    await expect.poll(() => page.getByLabel("Action", { exact: true }).inputValue(), POLL).toBe("")
  })

  it("says in its own words that a link's action is unknown, and offers every action", async () => {
    const email = `audit-unknown-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Audit unknown ${Date.now()}`, { staging: { DB_URL: "one" } })
    const path = `/projects/${slug}/audit?action=nope&key=DB_URL`
    const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`, {
      width: 375,
      height: 800,
    })
    await signInPage(page, email)
    const notice = page.getByRole("status").filter({ hasText: "which the audit log does not record" })
    await notice.waitFor()
    expect(await notice.textContent()).toContain("“nope”")
    // Not the service's refusal, which lists every action.
    expect(await page.getByText("must be one of").count()).toBe(0)
    expect(await page.getByLabel("Action", { exact: true }).inputValue()).toBe("nope")
    await browser.screenshot(page, "audit-unknown-action-375")
    await page.setViewportSize({ width: 1440, height: 900 })
    await browser.screenshot(page, "audit-unknown-action-1440")
    // The other filters stay.
    await page.getByRole("button", { name: "Show every action" }).click()
    await expect.poll(() => new URL(page.url()).search, POLL).toBe("?key=DB_URL")
    await expect.poll(() => page.locator("table tbody tr td:nth-child(3)").allTextContents(), POLL).toEqual(["DB_URL"])
    expect(await page.getByLabel("Action", { exact: true }).inputValue()).toBe("")
  })
})
