/**
 * The dashboard at 375 px and 1440 px and by keyboard, in Chromium against the built host (`e2e-node` and
 * `e2e-bun`): every page fits the width without sideways scrolling of the page itself (wide tables scroll in
 * their own box), with screenshots for a person to look at (`test/e2e/screenshots/dashboard-*.png`); a platform
 * can be created, opened and its version deleted with the keyboard alone; every control has an accessible name;
 * axe-core finds no WCAG 2.1 A or AA violation on any page, the sign-in page or the token's shown-once dialog; a
 * schema's revisions at 375 px keep a usual e-mail whole.
 */
import type { Locator, Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import {
  brokenCells,
  expectControlEdgesVisible,
  expectEmailWrappedWell,
  focusedElement,
  settled,
  sidewaysOverflow,
  unnamedControls,
} from "./a11y.js"
import { expectAccessible } from "./axe.js"
import { POLL, useBrowser } from "./browser.js"
import { saveSchema, schemasAs, seedPlatforms, signedIn, unique } from "./dashboardApi.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("schemas")

const WIDTHS = [375, 1440] as const

describe("layout", () => {
  it("fits every page at 375 and 1440 px, with every control named", async () => {
    const email = `layout-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const root = unique("base")
    const app = unique("mobile-app-with-a-long-name")
    await seedPlatforms(api, {
      [root]: { versions: ["1.0.0"], kind: "service" },
      [app]: { versions: ["1.0.0", "1.1.0-rc.1", "1.1.0+build.42", "2.0.0"], kind: "android" },
    })
    await saveSchema(api, `${root}/1.0.0`, { api: { url: "https://api.example.com/v1/some/long/path", timeout: 30 } })
    await saveSchema(api, `${app}/2.0.0`, { "@extends": `${root}/1.0.0`, api: { timeout: 10 }, features: ["a", "b"] })
    await saveSchema(api, `${app}/2.0.0`, { "@extends": `${root}/1.0.0`, api: { timeout: 12 }, features: ["a"] })
    await api.call("POST", "/api/_ui/v1/tokens", { name: "ci-reader", platforms: [app] })
    // Each page with a text its first render shows, and (where a part loads apart without saying "Loading")
    // that part; `settled` then waits for every part that says it is loading.
    const pages: ReadonlyArray<readonly [string, string, string, ((page: Page) => Locator)?]> = [
      ["platforms", "/platforms", "Platforms"],
      // The versions table with every kind of row: no schema yet, and saved with a reference, a time and a person.
      ["platform", `/platforms/${app}`, app, (page) => page.getByText("Revision 2", { exact: true })],
      ["content", `/platforms/${app}/versions/2.0.0`, "How to write @extends"],
      ["output", `/platforms/${app}/versions/2.0.0/output`, "this schema"],
      ["inheritance", `/platforms/${app}/versions/2.0.0/inheritance`, "Dependents"],
      // The other versions to compare the output with come from a list of platforms fetched apart.
      [
        "history",
        `/platforms/${app}/versions/2.0.0/history`,
        "Compare two revisions",
        (page) => page.getByLabel("Other version", { exact: true }).locator(`option[value="${root}/1.0.0"]`),
      ],
      ["tokens", "/tokens", "ci-reader"],
      ["audit", "/audit", "Created token"],
      ["not-found", "/no-such-page", "Page not found"],
      ["signed-in-again", `/signed-in-again?page=${encodeURIComponent(`/platforms/${app}`)}`, "Signed in again"],
    ]
    // Signed out first: the sign-in page.
    for (const width of WIDTHS) {
      const signIn = await browser.open(`${served.base}/sign-in`, { width, height: 900 })
      await signIn.getByLabel("Groups").waitFor()
      await browser.screenshot(signIn, `dashboard-sign-in-${width}`)
      expect(await sidewaysOverflow(signIn)).toBeLessThanOrEqual(0)
      await expectAccessible(signIn, `sign-in at ${width} px`)
    }
    const page = await signedIn(browser, served.base, email, "/platforms")
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 })
      for (const [name, path, landmark, alsoLoaded] of pages) {
        await page.goto(`${served.base}${path}`)
        await page.getByText(landmark, { exact: true }).first().waitFor()
        await alsoLoaded?.(page).waitFor({ state: "attached" })
        await settled(page)
        await browser.screenshot(page, `dashboard-${name}-${width}`)
        expect(await sidewaysOverflow(page), `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0)
        expect(await unnamedControls(page), `${name} at ${width} px`).toEqual([])
        await expectAccessible(page, `${name} at ${width} px`)
      }
      // A new token, shown once in a dialog over the tokens page.
      await page.goto(`${served.base}/tokens`)
      await page.getByLabel("Token name").fill(`ci-${width}`)
      await page.getByRole("button", { name: "Create token" }).click()
      const shown = page.getByRole("dialog", { name: `Token ci-${width} created` })
      await shown.getByLabel(`Token ci-${width} value`).waitFor()
      await settled(page)
      await browser.screenshot(page, `dashboard-token-${width}`)
      expect(await unnamedControls(page), `token dialog at ${width} px`).toEqual([])
      await expectAccessible(page, `token dialog at ${width} px`)
    }
    // Every page at two widths, each checked for layout, names and accessibility: over twice the other tests' work,
    // which took 49 s of the 60 s limit on a loaded 2-core machine.
  }, 150_000)
})

describe("a schema's history on a phone", () => {
  it("keeps a usual e-mail whole, wrapping between words first", async () => {
    const email = `alice-${String(Date.now()).slice(-6)}@example.com`
    const api = await schemasAs(served.base, email)
    const app = unique("app")
    await seedPlatforms(api, { [app]: ["1.0.0"] })
    await saveSchema(api, `${app}/1.0.0`, { a: 1 })
    await saveSchema(api, `${app}/1.0.0`, { a: 2 })
    const page = await signedIn(browser, served.base, email, `/platforms/${app}/versions/1.0.0/history`, [], {
      width: 375,
      height: 900,
    })
    const table = page.getByRole("table", { name: "Revisions, newest first" })
    await table.getByText(email).first().waitFor()
    await settled(page)
    await browser.screenshot(page, "dashboard-history-email-375")
    // Not "alice-123456@exampl / e.com": the address, which fits a line of its own, is not cut inside a word.
    expect(await brokenCells(table.locator("tbody td:last-child"))).toEqual([])
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
  })
})

describe("the audit log's people", () => {
  it.each(WIDTHS)("wraps a long address at %i px only after its @ or a dot, never inside a label", async (width) => {
    // Long enough to wrap at both widths, with no space or hyphen before the @ for the browser to wrap at on its
    // own; a hyphen in the domain belongs to its label, not a place to wrap.
    const email = `someone.with.a.really.quite.long.address.${Date.now()}@accounts.example-corporation.co.uk`
    const api = await schemasAs(served.base, email)
    const app = unique("app")
    await seedPlatforms(api, { [app]: ["1.0.0"] })
    await api.call("POST", "/api/_ui/v1/tokens", { name: unique("token"), platforms: [app] })
    const page = await signedIn(browser, served.base, email, "/audit", [], { width, height: 900 })
    const table = page.getByRole("table", { name: "Audit log, newest first" })
    const who = table.locator('td[data-label="Who"]', { hasText: email }).first()
    await who.waitFor()
    await settled(page)
    await browser.screenshot(page, `dashboard-audit-long-email-${width}`)
    await expectEmailWrappedWell(who, email)
    expect(await sidewaysOverflow(page), `audit at ${width} px scrolls sideways`).toBeLessThanOrEqual(0)
    const cell = await who.boundingBox()
    const row = await who.locator("xpath=..").boundingBox()
    expect(cell!.x + cell!.width).toBeLessThanOrEqual(row!.x + row!.width + 1)
  })
})

describe("the header", () => {
  it("marks Platforms as the current place at / as at /platforms", async () => {
    const page = await signedIn(browser, served.base, `header-${Date.now()}@example.com`, "/")
    const nav = page.getByRole("navigation", { name: "Main" })
    await page.getByRole("heading", { name: "Platforms" }).waitFor()
    expect(await nav.locator('[aria-current="page"]').allTextContents()).toEqual(["Platforms"])
  })
})

describe("keyboard", () => {
  it("moves the focus to the new page's heading on a page change, by link, Back or Forward", async () => {
    const email = `heading-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const app = unique("headed")
    await seedPlatforms(api, { [app]: ["1.0.0"] })
    const page = await signedIn(browser, served.base, email, "/platforms")
    await page.getByRole("link", { name: app }).waitFor()
    const focused = () => focusedElement(page)
    // A header link followed from the keyboard: the heading of the page it opened, focusable but no Tab stop.
    const main = page.getByRole("navigation", { name: "Main" })
    await main.getByRole("link", { name: "Audit log" }).focus()
    await page.keyboard.press("Enter")
    await expect.poll(focused, POLL).toBe("H1 -1 Audit log")
    // A page whose heading comes after it loads (a platform's).
    await main.getByRole("link", { name: "Platforms" }).click()
    await expect.poll(focused, POLL).toBe("H1 -1 Platforms")
    await page.getByRole("link", { name: app }).click()
    await expect.poll(focused, POLL).toBe(`H1 -1 ${app}`)
    await page.goBack()
    await expect.poll(focused, POLL).toBe("H1 -1 Platforms")
    await page.goForward()
    await expect.poll(focused, POLL).toBe(`H1 -1 ${app}`)
  })

  it("creates a platform, adds and deletes a version with the keyboard alone", async () => {
    const email = `keys-${Date.now()}@example.com`
    const page = await signedIn(browser, served.base, email, "/platforms")
    await page.reload()
    await page.getByLabel("Platform name").waitFor()
    // The skip link is the first stop and moves focus to the content.
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content")
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main")

    const name = unique("keys")
    await page.getByLabel("Platform name").focus()
    await page.keyboard.type(name)
    await page.keyboard.press("Enter")
    await page.waitForURL(`${served.base}/platforms/${name}`)
    await page.getByLabel("Version", { exact: true }).focus()
    await page.keyboard.type("1.0.0")
    await page.keyboard.press("Enter")
    await page.getByText("Added version 1.0.0").waitFor()
    await page.getByRole("button", { name: "Delete version 1.0.0" }).focus()
    await page.keyboard.press("Enter")
    const dialog = page.getByRole("dialog", { name: "Delete version 1.0.0?" })
    await dialog.waitFor()
    // Escape closes without deleting; focus stays inside an open dialog.
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "detached" })
    await page.getByRole("button", { name: "Delete version 1.0.0" }).focus()
    await page.keyboard.press("Enter")
    await dialog.waitFor()
    expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true)
    await dialog.getByRole("button", { name: "Delete version" }).focus()
    await page.keyboard.press("Enter")
    await page.getByText("No versions yet.").waitFor()
  })
})

describe("keyboard, where a control goes under the focus", () => {
  it("keeps the focus on the editor when Discard changes goes with its notice", async () => {
    const email = `discard-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const app = unique("discard")
    await seedPlatforms(api, { [app]: ["1.0.0"] })
    await saveSchema(api, `${app}/1.0.0`, { a: 1 })
    const page = await signedIn(browser, served.base, email, `/platforms/${app}/versions/1.0.0`)
    const editor = page.getByLabel("Content (JSON)")
    await editor.fill('{ "typed": true }')
    const discard = page.getByRole("button", { name: "Discard changes" })
    await discard.focus()
    await page.keyboard.press("Enter")
    await discard.waitFor({ state: "detached" })
    expect(await editor.inputValue()).toBe('{\n  "a": 1\n}')
    // On the text brought back, and staying there: nothing moves it to the top of the page afterwards.
    const focusedId = () => page.evaluate(() => document.activeElement?.id)
    await expect.poll(focusedId, POLL).toBe("schema-content")
    await page.waitForTimeout(300)
    expect(await focusedId()).toBe("schema-content")
  })

  it("puts the focus on Token name when a new token's dialog closes over the greyed-out Create token", async () => {
    const email = `token-focus-${Date.now()}@example.com`
    const page = await signedIn(browser, served.base, email, "/tokens")
    const name = unique("focus")
    await page.getByLabel("Token name").fill(name)
    await page.getByRole("button", { name: "Create token" }).focus()
    await page.keyboard.press("Enter")
    const shown = page.getByRole("dialog", { name: `Token ${name} created` })
    await shown.getByRole("button", { name: `Copy the token ${name}` }).focus()
    await page.keyboard.press("Enter")
    await shown.getByRole("button", { name: "Done" }).focus()
    await page.keyboard.press("Enter")
    await shown.waitFor({ state: "detached" })
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("name")), POLL).toBe("name")
    await page.waitForTimeout(300)
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).labels?.[0]?.textContent)).toBe(
      "Token name",
    )
  })
})

describe("contrast", () => {
  it("draws the edges of fields and secondary buttons, and the focus ring, at 3:1 at least in both schemes", async () => {
    const email = `contrast-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const app = unique("contrast")
    await seedPlatforms(api, { [app]: ["1.0.0"] })
    const page = await signedIn(browser, served.base, email, `/platforms/${app}`)
    // The platform page: the Version field, the Kind select and the secondary Change kind button.
    await page.getByRole("button", { name: "Change kind" }).waitFor()
    await expectControlEdgesVisible(page, (colorScheme) =>
      browser.screenshot(page, `dashboard-contrast-${colorScheme}`),
    )
  })
})
