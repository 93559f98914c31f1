/**
 * The audit log names the API key a person acted through (in Chromium against the built host, `e2e-node` and
 * `e2e-bun`): "via key <name>" under the person's address, the name a link to what that key did (`?apiKey=<id>`),
 * the filter bar showing the key while it applies (by name, also for a key that made no entry) and lifting it with
 * Clear, and each key's Activity link on the API keys page. The Person column wraps a long address only where `EmailAddress` lets it and still fits the table
 * to the screen at 800 px and 375 px. Screenshots: `test/e2e/screenshots/secrets-audit-api-key-*.png`.
 */
import { describe, expect, it } from "vitest"
import { expectEmailWrappedWell, settled, sidewaysOverflow } from "./a11y.js"
import { apiAs, seedProject, signInPage } from "./api.js"
import { POLL, useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("secrets")

describe("the audit log's API keys", () => {
  it("says which key acted, narrows the log to it from an entry and from the API keys page, and fits", async () => {
    // Long enough to wrap at 375 px, with no hyphen for the browser to wrap at on its own, and no part between the
    // places it may wrap at wider than the Person column at 800 px (about 100 px beside the entry's short values):
    // a part wider than its column breaks inside itself rather than widen the table.
    const email = `ada.lovelace.and.charles.babbage.${String(Date.now()).slice(-6)}@mail.engines.example.co.uk`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Audit keys ${Date.now()}`, { staging: { DB_URL: "one" } })
    const created = await api.call<{ id: string; key: string }>("POST", "/api/api-keys", {
      name: "ci-deploy",
      projectSlug: slug,
      scope: "read",
    })
    const secret = `/api/projects/${slug}/environments/staging/secrets/DB_URL`
    const read = await fetch(`${served.base}${secret}`, { headers: { authorization: `Bearer ${created.key}` } })
    expect(read.status).toBe(200)
    // The same person, with the session: not the key's doing.
    await api.call("GET", secret)

    const path = `/projects/${slug}/audit`
    const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}${path}`)
    const table = page.getByRole("table", { name: /page 1, newest first/ })
    await table.waitFor()
    await settled(page)
    const people = table.locator('td[data-label="Person"]')
    expect((await people.allTextContents()).filter((text) => text.includes("via key"))).toEqual([
      `${email}via key ci-deploy`,
    ])
    await browser.screenshot(page, "secrets-audit-api-key-1440")

    // The name narrows the log to the key; the filter bar says so, and Clear lifts it.
    const address = () => new URL(page.url()).search
    await table.getByRole("link", { name: "Entries made with API key ci-deploy" }).click()
    await expect.poll(address, POLL).toBe(`?apiKey=${created.id}`)
    const filtered = page.getByRole("table", { name: /filtered, page 1, newest first/ })
    await filtered.waitFor()
    await expect
      .poll(() => filtered.locator('td[data-label="Action"]').allTextContents(), POLL)
      .toEqual(["Read secret"])
    const bar = page.getByRole("form", { name: "Filter the audit log" })
    await expect.poll(() => bar.getByText("ci-deploy", { exact: true }).count(), POLL).toBe(1)
    await settled(page)
    await browser.screenshot(page, "secrets-audit-api-key-filtered-1440")
    await bar.getByRole("button", { name: "Clear the API key filter" }).click()
    await expect.poll(address, POLL).toBe("")
    await expect.poll(() => bar.getByText("ci-deploy", { exact: true }).count(), POLL).toBe(0)

    // At 800 px the table fits its box, the address wrapping only where an address reads well; at 375 px each
    // entry is a block of its own, and the page fits too.
    const session = people.filter({ hasNotText: "via key" }).first()
    for (const width of [800, 375]) {
      await page.setViewportSize({ width, height: 900 })
      await settled(page)
      await browser.screenshot(page, `secrets-audit-api-key-${width}`)
      const box = page.locator(".table-wrap")
      expect(await box.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0)
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
      await expectEmailWrappedWell(session, email)
    }
    await page.setViewportSize({ width: 1440, height: 900 })

    // A key's Activity on the API keys page is the same view.
    await page.goto(`${served.base}/api-keys`)
    await page.getByRole("link", { name: "Activity of ci-deploy" }).click()
    await page.waitForURL(`${served.base}${path}?apiKey=${created.id}`)
    await expect
      .poll(() => page.getByRole("table").locator('td[data-label="Action"]').allTextContents(), POLL)
      .toEqual(["Read secret"])
    await expect.poll(() => bar.getByText("ci-deploy", { exact: true }).count(), POLL).toBe(1)

    // A key that has done nothing yet is named too, from the project's keys: no entry can tell its name.
    const idle = await api.call<{ id: string }>("POST", "/api/api-keys", {
      name: "idle-key",
      projectSlug: slug,
      scope: "read",
    })
    await page.goto(`${served.base}/api-keys`)
    await page.getByRole("link", { name: "Activity of idle-key" }).click()
    await page.waitForURL(`${served.base}${path}?apiKey=${idle.id}`)
    await page.getByText("No entries match the filters.").waitFor()
    await expect.poll(() => bar.getByText("idle-key", { exact: true }).count(), POLL).toBe(1)
    expect(await bar.getByText(idle.id).count()).toBe(0)
    await browser.screenshot(page, "secrets-audit-api-key-idle-1440")
  })
})
