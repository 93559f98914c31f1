/**
 * A project's audit log (issue 12 §10) in Chromium against the built host (`e2e-node` and `e2e-bun`): newest
 * first, fifty entries a page, each with action, target, environment, person, address and time; Older and
 * Newer move between pages, and Back returns to the page before. Fails on a console error, a page error or a
 * CSP violation (`browser.ts`).
 */
import { describe, expect, it } from "vitest"
import { apiAs, seedProject, signInPage } from "./api.js"
import { useBrowser } from "./browser.js"
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

    await page.getByRole("button", { name: "Older" }).click()
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
    expect(await page.getByRole("button", { name: "Older" }).isDisabled()).toBe(true)

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
})
