/**
 * API tokens and the audit log in the dashboard, in Chromium against the built host (`e2e-node` and `e2e-bun`):
 * creating a token for every platform and one for chosen platforms (why Create token is greyed out said beside
 * it), shown once with a copy button (a stray Escape before copying does not close it) and working against the
 * API, the list with hint, scope (none left once its platforms are deleted), creator, creation and last use,
 * revoking after a confirmation (the token stops working at once); the audit log newest first, fifty entries a
 * page, each entry's detail read out in words.
 */
import { describe, expect, it } from "vitest"
import { brokenCells } from "./a11y.js"
import { holdBack, POLL, useBrowser } from "./browser.js"
import { schemasAs, seedPlatforms, signedIn, unique } from "./dashboardApi.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("schemas")

const readWith = (token: string, path: string) =>
  fetch(`${served.base}${path}`, { headers: { Authorization: `Bearer ${token}` } }).then((response) => response.status)

describe("API tokens", () => {
  it("names each token's Revoke apart, by its hint, where two tokens share a name", async () => {
    const email = `same-tokens-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const name = unique("same")
    await api.call("POST", "/api/_ui/v1/tokens", { name })
    await api.call("POST", "/api/_ui/v1/tokens", { name })
    const page = await signedIn(browser, served.base, email, "/tokens")
    const revokes = page.getByRole("button", { name: new RegExp(`^Revoke token ${name}`) })
    await expect.poll(() => revokes.count(), POLL).toBe(2)
    const names = await revokes.evaluateAll((buttons) => buttons.map((button) => button.getAttribute("aria-label")))
    expect(new Set(names).size, `${names}`).toBe(2)
  })

  it("creates, shows once, copies, lists and revokes tokens", async () => {
    const email = `tokens-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const ios = unique("ios")
    const web = unique("web")
    await seedPlatforms(api, { [ios]: ["1.0.0"], [web]: ["1.0.0"] })
    const page = await signedIn(browser, served.base, email, "/tokens")

    // Every platform.
    await page.getByLabel("Token name").fill("ci-all")
    await page.getByRole("button", { name: "Create token" }).click()
    let shown = page.getByRole("dialog", { name: "Token ci-all created" })
    await shown.waitFor()
    const all = (await shown.getByLabel("Token ci-all value").textContent())!
    expect(all).toMatch(/^cfs_/)
    // It opens on Copy, not on its Close button: Enter pressed by habit copies the token rather than dismissing it.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")), POLL)
      .toBe("Copy the token ci-all")
    expect(await shown.textContent()).toContain("sets it as COFFER_SCHEMAS_TOKEN for coffer schemas get")
    await shown.getByRole("button", { name: "Copy the token ci-all" }).click()
    await page.getByText("Copied to the clipboard").waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(all)
    // Copied: Escape closes it.
    await page.keyboard.press("Escape")
    await page.getByLabel("Token ci-all value").waitFor({ state: "detached" })
    expect(await readWith(all, `/api/${web}`)).toBe(200)

    // Chosen platforms only.
    await page.getByLabel("Token name").fill("ci-ios")
    await page.getByLabel("Only the platforms chosen below").check()
    // The button follows the choice on the next render: wait for it to be disabled rather than read it at once.
    await expect.poll(() => page.getByRole("button", { name: "Create token" }).isDisabled(), POLL).toBe(true)
    await page.getByLabel(ios, { exact: true }).check()
    await page.getByRole("button", { name: "Create token" }).click()
    shown = page.getByRole("dialog", { name: "Token ci-ios created" })
    const scoped = (await shown.getByLabel("Token ci-ios value").textContent())!
    // Not copied: a stray Escape does not throw it away; it says so, and Done closes.
    await page.keyboard.press("Escape")
    await shown.getByRole("alert").filter({ hasText: "Not copied yet" }).waitFor()
    expect(await shown.getByLabel("Token ci-ios value").textContent()).toBe(scoped)
    await shown.getByRole("button", { name: "Done" }).click()
    await shown.waitFor({ state: "detached" })
    expect(await readWith(scoped, `/api/${ios}`)).toBe(200)
    expect(await readWith(scoped, `/api/${web}`)).toBe(404)

    // The list, with the use just made.
    await page.reload()
    const row = (name: string) => page.getByRole("row", { name: new RegExp(`^${name} `) })
    await row("ci-ios").waitFor()
    const cells = async (name: string) =>
      (await row(name).getByRole("cell").allTextContents()).map((text) => text.trim())
    const [hint, scope, creator, created, lastUsed] = await cells("ci-ios")
    expect(hint).toBe(`cfs_…${scoped.slice(-4)}`)
    expect(scope).toBe(ios)
    expect(creator).toBe(email)
    expect(created).not.toBe("never")
    expect(lastUsed).not.toBe("never")
    expect((await cells("ci-all"))[1]).toBe("All platforms")

    // A deleted platform leaves the token's platforms, which says so when none is left; a platform created
    // again under that name is another one, which the token does not read.
    await api.call("DELETE", `/api/_ui/v1/platforms/${ios}`)
    await seedPlatforms(api, { [ios]: ["1.0.0"] })
    await page.reload()
    await row("ci-ios").getByText("None: its platforms were deleted").waitFor()
    expect(await readWith(scoped, `/api/${ios}`)).toBe(404)
    const listed = await fetch(`${served.base}/api/schemas`, { headers: { Authorization: `Bearer ${scoped}` } })
    expect(await listed.json()).toEqual([])

    // Revoke: confirmed, then gone and refused at once.
    await page.getByRole("button", { name: "Revoke token ci-all" }).click()
    const confirm = page.getByRole("dialog", { name: "Revoke ci-all?" })
    await confirm.getByRole("button", { name: "Cancel" }).click()
    expect(await readWith(all, `/api/${web}`)).toBe(200)
    // The list comes back late, as on a slow network: the revocation is said (and its dialog closed) only once the
    // list no longer shows the token. Said before, the revoked token stood there with its Revoke button until then.
    const tokenList = `${served.base}/api/_ui/v1/tokens`
    await page.route(tokenList, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 400))
      await route.continue()
    })
    await page.getByRole("button", { name: "Revoke token ci-all" }).click()
    await confirm.getByRole("button", { name: "Revoke token" }).click()
    await page.getByText("Revoked ci-all").waitFor()
    expect(await row("ci-all").count()).toBe(0)
    await page.unroute(tokenList)
    expect(await readWith(all, `/api/${web}`)).toBe(401)
  })
})

describe("the token form", () => {
  it("is drawn once the list of tokens above it is in, not under its loading line", async () => {
    const page = await signedIn(browser, served.base, `slow-tokens-${Date.now()}@example.com`, "/tokens")
    const create = page.getByRole("button", { name: "Create token" })
    await page.getByLabel("Token name").fill("listed")
    await create.click()
    await page.getByRole("button", { name: "Done" }).click()
    await page.getByRole("row", { name: /^listed / }).waitFor()
    // The list held back, as on a slow network: the form was drawn under "Loading tokens…" and jumped down by the
    // whole list when it came, from under the pointer.
    const list = `${served.base}/api/_ui/v1/tokens`
    const release = await holdBack(page, list)
    await page.reload()
    await page.getByText("Loading tokens…").waitFor()
    expect(await page.getByRole("form", { name: "Create an API token" }).count()).toBe(0)
    release()
    await create.waitFor()
    expect(await page.getByRole("row", { name: /^listed / }).count()).toBe(1)
    await page.unroute(list)
  })

  it("says beside a greyed-out Create token why it is not offered", async () => {
    const email = `token-why-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const web = unique("web")
    await seedPlatforms(api, { [web]: ["1.0.0"] })
    const page = await signedIn(browser, served.base, email, "/tokens")
    const button = page.getByRole("button", { name: "Create token" })
    // The button's description: the hint its `aria-describedby` names, or null when it names none.
    const why = () =>
      button.evaluate((element) => {
        const id = element.getAttribute("aria-describedby")
        return id === null ? null : (document.getElementById(id)?.textContent ?? "(missing)")
      })
    await expect.poll(why, POLL).toBe("Name the token to create it.")
    await page.getByLabel("Token name").fill("ci-chosen")
    await expect.poll(why, POLL).toBe(null)
    expect(await button.isDisabled()).toBe(false)

    await page.getByLabel("Only the platforms chosen below").check()
    await expect.poll(why, POLL).toBe("Tick at least one platform above, or choose Every platform.")
    expect(await button.isDisabled()).toBe(true)
    await page.getByText("Tick at least one platform above, or choose Every platform.").waitFor()
    await browser.screenshot(page, "dashboard-token-why")
    await page.getByLabel("Token name").fill("")
    await expect.poll(why, POLL).toBe("Name the token and tick at least one platform above, or choose Every platform.")
    await page.getByLabel("Token name").fill("ci-chosen")
    await page.getByLabel(web, { exact: true }).check()
    await expect.poll(why, POLL).toBe(null)
    expect(await button.isDisabled()).toBe(false)
    await page.getByLabel(web, { exact: true }).uncheck()
    await expect.poll(why, POLL).toBe("Tick at least one platform above, or choose Every platform.")
    await page.getByLabel("Every platform, present and future").check()
    await expect.poll(why, POLL).toBe(null)
  })
})

describe("long names at 1440 px", () => {
  it("keeps each token's hint, creator and times, and each entry's time and action, whole", async () => {
    const email = `long-names-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const platforms = Array.from({ length: 6 }, (_, index) => unique(`platform-with-a-rather-long-name-${index}`))
    await seedPlatforms(api, Object.fromEntries(platforms.map((platform) => [platform, ["1.0.0"]])))
    const name = "t".repeat(64)
    await api.call("POST", "/api/_ui/v1/tokens", { name, platforms })
    const page = await signedIn(browser, served.base, email, "/tokens", [], { width: 1440, height: 900 })
    const cells = (labels: ReadonlyArray<string>) => labels.map((label) => `td[data-label="${label}"]`).join(", ")

    const tokens = page.getByRole("table", { name: "API tokens" })
    await tokens.getByText(name).waitFor()
    expect(await brokenCells(tokens.locator(cells(["Hint", "Created by", "Created", "Last used"])))).toEqual([])

    await page.goto(`${served.base}/audit`)
    const log = page.getByRole("table", { name: "Audit log, newest first" })
    await log.getByText(name, { exact: true }).waitFor()
    expect(await brokenCells(log.locator(cells(["When", "What"])))).toEqual([])
    expect((await log.locator('td[data-label="Who"]').first().boundingBox())!.width).toBeGreaterThanOrEqual(200)
    // Narrower, the log still fits its box: it has nothing to focus, so a keyboard could not scroll it.
    await page.setViewportSize({ width: 800, height: 900 })
    expect(await log.evaluate((table) => table.parentElement!.scrollWidth - table.parentElement!.clientWidth)).toBe(0)
  })
})

describe("the audit log", () => {
  it("reads each entry's detail out rather than showing the recorded fields", async () => {
    const email = `audit-detail-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const empty = unique("empty")
    const full = unique("full")
    const listed = unique("listed")
    await seedPlatforms(api, {
      [empty]: { versions: [], kind: "web" },
      [full]: { versions: ["1.0.0", "1.1.0", "2.0.0"] },
      [listed]: { versions: ["1.0.0", "2.0.0"], kind: "ios" },
    })
    await api.call("DELETE", `/api/_ui/v1/platforms/${empty}`)
    await api.call("DELETE", `/api/_ui/v1/platforms/${full}`)
    // A version left out of the list `POST /api/{platform}` sends is deleted.
    await api.call("POST", `/api/${listed}`, { name: listed, versions: ["1.0.0"] })
    await api.call("PATCH", `/api/_ui/v1/platforms/${listed}`, { kind: "service" })
    await api.call("POST", "/api/_ui/v1/tokens", { name: unique("scoped"), platforms: [listed] })
    const page = await signedIn(browser, served.base, email, "/audit")
    const table = page.getByRole("table", { name: "Audit log, newest first" })
    await table.waitFor()
    // Each entry of a target, as [what, detail].
    const entries = async (target: string) => {
      const rows = table
        .locator("tbody tr")
        .filter({ has: page.locator('td[data-label="Target"]').getByText(target, { exact: true }) })
      return Promise.all(
        (await rows.all()).map(async (row) => [
          await row.locator('td[data-label="What"]').textContent(),
          await row.locator('td[data-label="Detail"]').textContent(),
        ]),
      )
    }
    await table.getByText(`${listed}/2.0.0`, { exact: true }).waitFor()
    expect(await entries(`${listed}/2.0.0`)).toEqual([["Deleted version", "left out of the versions list"]])
    expect(await entries(full)).toEqual([["Deleted platform", "3 versions: 1.0.0, 1.1.0, 2.0.0"]])
    expect(await entries(empty)).toEqual([["Deleted platform", "no versions; kind web"]])
    expect(await entries(listed)).toEqual([["Changed kind", "from ios to service"]])
    const token = table.locator("tbody tr").filter({ hasText: "Created token" }).first()
    expect(await token.locator('td[data-label="Detail"]').textContent()).toBe(`for 1 platform: ${listed}`)
    await browser.screenshot(page, "dashboard-audit-details")
  })

  it("lists entries newest first, fifty a page", async () => {
    const email = `audit-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const prefix = unique("audited")
    for (let index = 0; index < 55; index++) {
      await api.call("POST", "/api/_ui/v1/tokens", { name: `${prefix}-${index}` })
    }
    const page = await signedIn(browser, served.base, email, "/audit")
    const table = page.getByRole("table", { name: "Audit log, newest first" })
    await table.waitFor()
    expect(await table.locator("tbody tr").count()).toBe(50)
    const first = await table.locator("tbody tr").first().getByRole("cell").allTextContents()
    // A token by its name, its id on hover; the detail says what the name does not.
    expect(first.slice(1, 5)).toEqual([email, "Created token", `${prefix}-54`, "for all platforms"])
    expect(await table.locator('tbody tr td[data-label="Target"]').first().getAttribute("title")).toMatch(/^token id /)
    await page.getByText("Deletions, kind changes, and API tokens created or revoked, newest first.").waitFor()
    // Pressed from the keyboard until the log is all in: the focus stays on the button, which says so at the end.
    await page.getByRole("button", { name: "Older entries" }).focus()
    const focused = () => page.evaluate(() => document.activeElement?.textContent)
    for (let pages = 0; (await focused()) === "Older entries" && pages < 20; pages++) {
      const rows = await table.locator("tbody tr").count()
      await page.keyboard.press("Enter")
      await expect
        .poll(
          async () => (await focused()) !== "Older entries" || (await table.locator("tbody tr").count()) > rows,
          POLL,
        )
        .toBe(true)
    }
    await expect.poll(focused, POLL).toBe("No older entries")
    expect(await page.getByRole("button", { name: "No older entries" }).getAttribute("aria-disabled")).toBe("true")
    await table.locator("tbody tr").nth(54).waitFor()
    const targets = await table.locator("tbody tr td:nth-child(4)").allTextContents()
    const ours = targets.filter((text) => text.startsWith(`${prefix}-`))
    expect(ours).toEqual(Array.from({ length: 55 }, (_, index) => `${prefix}-${54 - index}`))
  })
})
