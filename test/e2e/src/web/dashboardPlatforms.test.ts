/**
 * The dashboard's platforms and versions in Chromium against the built host (`e2e-node` and `e2e-bun`): the list
 * with its search and kinds (a record without a kind reads as Custom), creating a platform (a taken name
 * explained), changing a kind; a platform's versions in semantic-version order with pre-releases and build
 * metadata marked, adding a version with the rules checked as the person types (the API's own sentences; one that
 * exists is refused, and the schemas a new latest release moves onto the empty version are named),
 * deleting a version after a confirmation and a platform after its name is typed, and a refused deletion listing the blocking schemas as
 * links. Each test fails on a console error, a page error or a CSP violation (`browser.ts`).
 */
import { describe, expect, it } from "vitest"
import { chromiumAccessible, expectTiedToField } from "./a11y.js"
import { holdBack, POLL, useBrowser } from "./browser.js"
import { saveSchema, schemasAs, seedPlatforms, signedIn, unique } from "./dashboardApi.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("schemas")

describe("the platforms list", () => {
  it("shows kinds with their descriptions, searches, creates a platform, explains a taken name", async () => {
    const email = `lister-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const mobile = unique("mobile")
    const legacy = unique("legacy")
    await seedPlatforms(api, {
      [mobile]: { versions: ["1.0.0", "1.2.0", "2.0.0-rc.1"], kind: "ios" },
      [legacy]: ["0.1.0"],
    })
    const page = await signedIn(browser, served.base, email, "/platforms")
    const row = (name: string) => page.getByRole("row", { name: new RegExp(name) })
    await row(mobile).waitFor()
    expect(await row(mobile).textContent()).toContain("iOSAn iPhone or iPad app")
    // Latest is what `latest` selects: the highest release, above a higher pre-release.
    expect(await row(mobile).getByRole("cell").last().textContent()).toBe("1.2.0")
    // A record created without a kind reads as Custom.
    expect(await row(legacy).textContent()).toContain("CustomAnything else")

    await page.getByLabel("Search platforms").fill(mobile)
    await page.getByText(/^1 of \d+ platforms$/).waitFor()
    expect(await row(legacy).count()).toBe(0)
    await page.getByLabel("Search platforms").fill("no-such-name-at-all")
    await page.getByText("No platform’s name contains “no-such-name-at-all”.").waitFor()
    await page.getByLabel("Search platforms").fill("")
    await row(legacy).waitFor()

    // The name rules are said before sending; a taken name is explained after.
    const name = page.getByLabel("Platform name")
    await name.fill("bad name")
    const refusal = `Invalid platform name "bad name": only letters, digits, '.', '_' and '-' are allowed, starting with a letter or digit`
    await page.getByText(refusal, { exact: true }).waitFor()
    expect(await name.getAttribute("aria-invalid")).toBe("true")
    // The API answers the very same sentence.
    expect(await api.send("POST", "/api/_ui/v1/platforms", { name: "bad name" })).toEqual({
      status: 400,
      body: { error: refusal },
    })
    expect(await page.getByRole("button", { name: "Create platform" }).isDisabled()).toBe(true)
    // A name the list shows is said taken under the field, once, and not sent.
    await name.fill(legacy)
    await page
      .getByText(`A platform named “${legacy}” already exists: open it from the list, or choose another name.`)
      .waitFor()
    expect(await page.getByRole("button", { name: "Create platform" }).isDisabled()).toBe(true)
    expect(await name.getAttribute("aria-invalid")).toBe("true")
    // One created elsewhere since the list was loaded is the service's 409, explained.
    const meanwhile = unique("meanwhile")
    await api.call("POST", "/api/_ui/v1/platforms", { name: meanwhile })
    await name.fill(meanwhile)
    await page.getByRole("button", { name: "Create platform" }).click()
    const alert = page.getByRole("form", { name: "Create a platform" }).getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toBe(
      `A platform named “${meanwhile}” already exists. Platform names are unique; open it from the list or choose another name.`,
    )
    // The field the refusal is about says so: marked invalid, the refusal read as its description, until it changes.
    expect(await name.getAttribute("aria-invalid")).toBe("true")
    expect((await chromiumAccessible(name)).description).toContain(`A platform named “${meanwhile}” already exists.`)
    await name.press("End")
    await name.press("Backspace")
    expect(await name.getAttribute("aria-invalid")).toBe("false")
    expect((await chromiumAccessible(name)).description).not.toContain("already exists")

    const created = unique("shop")
    await name.fill(created)
    await page.getByLabel("Kind", { exact: true }).selectOption("web")
    await page.getByRole("button", { name: "Create platform" }).click()
    await page.waitForURL(`${served.base}/platforms/${created}`)
    await page.getByRole("heading", { name: created }).waitFor()
    await page.getByText("No versions yet.").waitFor()
    expect(await api.call("GET", `/api/${created}`)).toEqual({ name: created, versions: [], kind: "web" })
  })

  it("draws the form for a new platform once the list above it is in, not under its loading line", async () => {
    const email = `slow-list-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    await seedPlatforms(api, { [unique("first")]: ["1.0.0"], [unique("second")]: ["1.0.0"] })
    const page = await signedIn(browser, served.base, email, "/platforms")
    await page.getByRole("table", { name: "Platforms" }).waitFor()
    // The list held back, as on a slow network: the form was drawn under "Loading platforms…" and jumped down by
    // the whole list when it came, from under the pointer and the typing.
    const list = `${served.base}/api/_ui/v1/platforms`
    const release = await holdBack(page, list)
    await page.reload()
    await page.getByText("Loading platforms…").waitFor()
    const form = page.getByRole("form", { name: "Create a platform" })
    expect(await form.count()).toBe(0)
    release()
    await form.waitFor()
    expect(await page.getByRole("table", { name: "Platforms" }).count()).toBe(1)
    await page.unroute(list)

    // The list refused: the form is offered beside Try again, and stays, with what was typed, while it is retried.
    let refuse = true
    let retried: () => void = () => undefined
    const retrying = new Promise<void>((resolve) => {
      retried = resolve
    })
    await page.route(list, async (route) => {
      if (refuse) {
        await route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: "Down" }) })
        return
      }
      await retrying
      await route.continue()
    })
    await page.reload()
    const again = page.getByRole("button", { name: "Try again" })
    await again.waitFor()
    await page.getByLabel("Platform name").fill("typed-meanwhile")
    refuse = false
    await again.click()
    await page.getByText("Loading platforms…").waitFor()
    expect(await page.getByLabel("Platform name").inputValue()).toBe("typed-meanwhile")
    retried()
    await page.getByRole("table", { name: "Platforms" }).waitFor()
    expect(await page.getByLabel("Platform name").inputValue()).toBe("typed-meanwhile")
    await page.unroute(list)
  })

  it("changes a platform's kind", async () => {
    const email = `kind-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const name = unique("svc")
    await seedPlatforms(api, { [name]: ["1.0.0"] })
    const page = await signedIn(browser, served.base, email, `/platforms/${name}`)
    await page.getByText("Custom", { exact: true }).first().waitFor()
    await page.getByLabel("Kind", { exact: true }).selectOption("service")
    await page.getByRole("button", { name: "Change kind" }).click()
    await page.getByText(`${name} is now of kind service`).waitFor()
    await page.locator(".head").getByText("Service", { exact: true }).waitFor()
    expect(await api.call("GET", `/api/${name}`)).toMatchObject({ kind: "service" })
  })
})

describe("a platform's versions", () => {
  it("lists versions newest first with pre-release and build marked, and checks a new version as it is typed", async () => {
    const email = `versions-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const name = unique("app")
    await seedPlatforms(api, {
      [name]: ["1.10.0", "1.2.0", "2.0.0-rc.1", "2.0.0-beta.2", "1.2.0+b.7", "2.0.0", "2.1.0-alpha.1"],
    })
    const page = await signedIn(browser, served.base, email, `/platforms/${name}`)
    const table = page.getByRole("table", { name: `Versions of ${name}, newest first` })
    await table.waitFor()
    const versions = await table.locator("tbody th code").allTextContents()
    expect(versions).toEqual(["2.1.0-alpha.1", "2.0.0", "2.0.0-rc.1", "2.0.0-beta.2", "1.10.0", "1.2.0+b.7", "1.2.0"])
    expect(await page.getByRole("row", { name: /2\.0\.0-rc\.1/ }).textContent()).toContain("pre-release rc.1")
    expect(await page.getByRole("row", { name: /1\.2\.0\+b\.7/ }).textContent()).toContain("build b.7")
    // Each link is named with a word apart for each badge, as a screen reader reads it.
    for (const link of [`Schema of ${name} 2.0.0 latest`, `Schema of ${name} 2.0.0-rc.1 pre-release rc.1`]) {
      expect(await page.getByRole("link", { name: link, exact: true }).count(), link).toBe(1)
    }
    // The version `latest` selects (the newest release, not a newer pre-release) is marked, and no other.
    expect(
      await table
        .locator("tbody th", { has: page.getByText("latest", { exact: true }) })
        .locator("code")
        .allTextContents(),
    ).toEqual(["2.0.0"])

    const input = page.getByLabel("Version", { exact: true })
    const add = page.getByRole("button", { name: "Add version" })
    const cases: ReadonlyArray<readonly [string, string]> = [
      [
        " 3.0.0",
        `Invalid version " 3.0.0": only letters, digits, '.', '-' and '+' are allowed (surrounding whitespace is not removed)`,
      ],
      [
        "3.0",
        'Invalid version "3.0": it is not a semantic version (MAJOR.MINOR.PATCH, optionally -prerelease and +build)',
      ],
      [
        "01.0.0",
        'Invalid version "01.0.0": it is not a semantic version (MAJOR.MINOR.PATCH, optionally -prerelease and +build)',
      ],
      [
        `1.0.0-${"a".repeat(130)}`,
        // Quoted cut short, with its length, as every message quotes what a request named.
        `Invalid version "1.0.0-${"a".repeat(74)}"… (136 characters): it is 136 characters long, at most 128 are allowed`,
      ],
    ]
    for (const [typed, message] of cases) {
      await input.fill(typed)
      await page.getByText(message, { exact: true }).waitFor()
      expect(await input.getAttribute("aria-invalid")).toBe("true")
      expect(await add.isDisabled()).toBe(true)
      // The API answers the very same sentence.
      expect(await api.send("POST", `/api/${name}/versions`, { version: typed })).toEqual({
        status: 400,
        body: { error: message },
      })
    }
    await input.fill("3.0.0-alpha+exp.sha.5114f85")
    // The field was marked invalid by the last case: wait for the check of the new text rather than read at once.
    await expect.poll(() => input.getAttribute("aria-invalid"), POLL).toBe("false")
    await input.press("Enter")
    await page.getByText("Added version 3.0.0-alpha+exp.sha.5114f85").waitFor()
    expect(await table.locator("tbody th code").first().textContent()).toBe("3.0.0-alpha+exp.sha.5114f85")
    expect(await input.inputValue()).toBe("")
    expect((await api.call<{ versions: string[] }>("GET", `/api/${name}`)).versions).toContain(
      "3.0.0-alpha+exp.sha.5114f85",
    )
  })

  it("refuses a version that exists, and names the schemas a new latest release moves onto it", async () => {
    const email = `mover-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const baseName = unique("base")
    const child = unique("child")
    await seedPlatforms(api, { [baseName]: ["1.0.0"], [child]: ["1.0.0", "2.0.0"] })
    await saveSchema(api, `${baseName}/1.0.0`, { inherited: true })
    await saveSchema(api, `${child}/1.0.0`, { "@extends": `${baseName}/^1.0.0` })
    await saveSchema(api, `${child}/2.0.0`, { "@extends": `${baseName}/1.0.0` })
    const page = await signedIn(browser, served.base, email, `/platforms/${baseName}`)
    const input = page.getByLabel("Version", { exact: true })
    const add = page.getByRole("button", { name: "Add version" })
    await input.fill("1.0.0")
    await page.getByText("1.0.0 exists already", { exact: true }).waitFor()
    expect(await add.isDisabled()).toBe(true)

    // Added without a schema: the warning before, the moved schemas after.
    await page.getByLabel("Its schema").selectOption("None yet")
    await input.fill("1.1.0")
    await page.getByText(`1.1.0 will be the latest release of ${baseName}.`, { exact: false }).waitFor()
    await add.click()
    await page.getByText("Added version 1.1.0 with no schema yet").waitFor()
    const moved = page.getByRole("status").filter({ hasText: "now inherits from" })
    // Only the range moved: the exact reference still selects 1.0.0.
    expect(await moved.getByRole("listitem").allTextContents()).toEqual([`${child}/1.0.0`])
    await moved.getByRole("link", { name: `${child}/1.0.0` }).click()
    await page.waitForURL(`${served.base}/platforms/${child}/versions/1.0.0/output`)
  })

  it("ties a version added elsewhere since the page was loaded (409) to the Version field", async () => {
    const email = `late-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const name = unique("late")
    await seedPlatforms(api, { [name]: ["1.0.0"] })
    // A saved schema: the form then starts the new version as a copy of it, which the service refuses for a version
    // that exists rather than replacing its schema unseen.
    await saveSchema(api, `${name}/1.0.0`, { a: 1 })
    const page = await signedIn(browser, served.base, email, `/platforms/${name}`)
    const input = page.getByLabel("Version", { exact: true })
    await expect.poll(() => page.getByLabel("Its schema").inputValue(), POLL).toBe("copy")
    await api.call("POST", `/api/${name}/versions`, { version: "1.1.0" })
    await input.fill("1.1.0")
    await page.getByRole("button", { name: "Add version" }).click()
    const alert = page.getByRole("form", { name: "Add a version" }).getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toBe(
      `Version 1.1.0 of ${name} exists already: it was added since this page was loaded. Choose another version.`,
    )
    await expectTiedToField(input, alert)
    // Until the version changes.
    await input.fill("1.2.0")
    expect(await input.getAttribute("aria-invalid")).toBe("false")
    expect((await chromiumAccessible(input)).description).not.toContain("exists already")
    expect(await alert.count()).toBe(0)
  })

  it("adds a version that starts with a copy of a saved schema, or extending one, and what moves inherits it", async () => {
    const email = `starter-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const baseName = unique("base")
    const child = unique("child")
    await seedPlatforms(api, { [baseName]: ["1.0.0", "1.1.0", "1.1.5"], [child]: ["1.0.0"] })
    await saveSchema(api, `${baseName}/1.0.0`, { inherited: true, url: "a" })
    const copied = { "@extends": `${baseName}/1.0.0`, url: "b" }
    await saveSchema(api, `${baseName}/1.1.0`, copied)
    await saveSchema(api, `${child}/1.0.0`, { "@extends": `${baseName}/^1.0.0` })
    const read = (platform: string, version: string) =>
      api.call<{ content: unknown; output: unknown }>("GET", `/api/${platform}/${version}`)
    const page = await signedIn(browser, served.base, email, `/platforms/${baseName}`)
    const input = page.getByLabel("Version", { exact: true })
    // The newest version with a saved schema is offered first (1.1.5 has none), as a copy.
    expect(await page.getByLabel("Its schema").inputValue()).toBe("copy")
    expect(await page.getByLabel("Copy of version").inputValue()).toBe("1.1.0")
    expect(await page.getByLabel("Copy of version").locator("option").allTextContents()).toEqual(["1.1.0", "1.0.0"])
    await input.fill("1.2.0")
    // No warning: the new latest release has a schema from the start.
    expect(await page.getByText("will be the latest release").count()).toBe(0)
    await page.getByRole("button", { name: "Add version" }).click()
    await page.getByText("Added version 1.2.0 with a copy of 1.1.0's schema").waitFor()
    const started = page.getByRole("status").filter({ hasText: "1.2.0 starts with" })
    await expect.poll(() => started.textContent(), POLL).toContain("1 schema inherits from it now")
    expect((await read(baseName, "1.2.0")).content).toEqual(copied)
    expect((await read(child, "1.0.0")).output).toEqual({ inherited: true, url: "b" })
    // The next add starts from the newest saved version again, the one just added.
    await expect.poll(() => page.getByLabel("Copy of version").inputValue(), POLL).toBe("1.2.0")

    await page.getByLabel("Its schema").selectOption("Extending")
    await page.getByLabel("Extended version").selectOption("1.0.0")
    await input.fill("1.3.0")
    await page.getByRole("button", { name: "Add version" }).click()
    await page.getByText("Added version 1.3.0 with a schema extending 1.0.0").waitFor()
    expect((await read(baseName, "1.3.0")).content).toEqual({ "@extends": `${baseName}/1.0.0` })
    expect((await read(child, "1.0.0")).output).toEqual({ inherited: true, url: "a" })
    await page
      .getByRole("status")
      .filter({ hasText: "1.3.0 starts with" })
      .getByRole("link", { name: "Edit its schema" })
      .click()
    await page.waitForURL(`${served.base}/platforms/${baseName}/versions/1.3.0`)
  })

  it("deletes a version and a platform after confirming; a blocked deletion lists the schemas as links", async () => {
    const email = `deleter-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const baseName = unique("base")
    const child = unique("child")
    await seedPlatforms(api, { [baseName]: ["1.0.0", "2.0.0"], [child]: ["1.0.0"] })
    await saveSchema(api, `${baseName}/1.0.0`, { a: 1 })
    await saveSchema(api, `${child}/1.0.0`, { "@extends": `${baseName}/1.0.0`, b: 2 })
    const page = await signedIn(browser, served.base, email, `/platforms/${baseName}`)

    // Blocked: the child extends 1.0.0.
    await page.getByRole("button", { name: "Delete version 1.0.0" }).click()
    let dialog = page.getByRole("dialog", { name: "Delete version 1.0.0?" })
    await dialog.getByRole("button", { name: "Delete version" }).click()
    const blocking = dialog.getByRole("list", { name: "Blocking schemas" })
    await blocking.waitFor()
    expect(await blocking.getByRole("listitem").allTextContents()).toEqual([`${child}/1.0.0 extends ${baseName}/1.0.0`])
    // Cancel keeps it.
    await dialog.getByRole("button", { name: "Cancel" }).click()
    expect(await page.getByRole("row", { name: /^Schema of .* 1\.0\.0/ }).count()).toBe(1)

    // The unblocked version goes.
    await page.getByRole("button", { name: "Delete version 2.0.0" }).click()
    dialog = page.getByRole("dialog", { name: "Delete version 2.0.0?" })
    await dialog.getByRole("button", { name: "Delete version" }).click()
    await page.getByText("Deleted version 2.0.0").waitFor()
    expect((await api.call<{ versions: string[] }>("GET", `/api/${baseName}`)).versions).toEqual(["1.0.0"])

    // The platform goes with every version, so its name must be typed first (as for a Secrets environment);
    // the dialog opens on that field. It is blocked too, and the link leads to the blocking schema.
    await page.getByRole("button", { name: `Delete platform ${baseName}` }).click()
    dialog = page.getByRole("dialog", { name: `Delete platform ${baseName}?` })
    const typed = dialog.getByLabel(`Type ${baseName} to confirm`)
    await typed.waitFor()
    await browser.screenshot(page, "dashboard-delete-platform")
    expect(await typed.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(await dialog.getByRole("paragraph").first().textContent()).toBe(
      `This deletes ${baseName}, its one version, its schema and history. It cannot be undone.`,
    )
    expect(await dialog.getByRole("button", { name: "Delete platform" }).isDisabled()).toBe(true)
    await typed.fill(baseName.slice(0, -1))
    expect(await dialog.getByRole("button", { name: "Delete platform" }).isDisabled()).toBe(true)
    await typed.fill(baseName)
    await dialog.getByRole("button", { name: "Delete platform" }).click()
    await dialog.getByRole("link", { name: `${child}/1.0.0` }).click()
    await page.waitForURL(`${served.base}/platforms/${child}/versions/1.0.0`)
    await page.getByLabel("Content (JSON)").waitFor()

    // Once the child no longer extends it, the platform can be deleted.
    await api.call("DELETE", `/api/_ui/v1/platforms/${child}`)
    await page.goto(`${served.base}/platforms/${baseName}`)
    await page.getByRole("button", { name: `Delete platform ${baseName}` }).click()
    dialog = page.getByRole("dialog", { name: `Delete platform ${baseName}?` })
    await dialog.getByLabel(`Type ${baseName} to confirm`).fill(baseName)
    await dialog.getByRole("button", { name: "Delete platform" }).click()
    await page.waitForURL(`${served.base}/platforms`)
    await page.getByText(`Deleted platform ${baseName}`).waitFor()
    await expect(api.call("GET", `/api/${baseName}`)).rejects.toThrow(/404/)
  })

  it("says per version whether a schema is saved, what it extends (exact versions linked) and its last save", async () => {
    const email = `summaries-${Date.now()}@example.com`
    const api = await schemasAs(served.base, email)
    const base = unique("base")
    const app = unique("app")
    await seedPlatforms(api, { [base]: ["1.0.0"], [app]: ["1.0.0", "1.1.0", "2.0.0"] })
    await saveSchema(api, `${base}/1.0.0`, { a: 1 })
    await saveSchema(api, `${app}/2.0.0`, { "@extends": [`${base}/1.0.0`, `${base}/^1.0.0`], b: 2 })
    const page = await signedIn(browser, served.base, email, "/platforms")
    // The page's reads of this platform: one request, whatever the number of versions.
    const reads: Array<string> = []
    page.on("request", (request) => {
      if (request.url().includes(`/api/`) && request.url().includes(app)) reads.push(request.url())
    })
    await page.goto(`${served.base}/platforms/${app}`)
    const row = (version: string) =>
      page.getByRole("row").filter({ has: page.getByRole("rowheader").locator("code", { hasText: version }) })
    const cell = (version: string, column: number) => row(version).getByRole("cell").nth(column)
    await cell("2.0.0", 0).getByText("Revision 1").waitFor()
    expect(reads).toEqual([`${served.base}/api/_ui/v1/platforms/${app}`])

    // Saved: its revision, its references as written (the exact one a link, the range text), when and by whom.
    const extended = cell("2.0.0", 1)
    expect(await extended.getByRole("listitem").allTextContents()).toEqual([`${base}/1.0.0`, `${base}/^1.0.0`])
    expect(await extended.getByRole("link").allTextContents()).toEqual([`${base}/1.0.0`])
    const saved = cell("2.0.0", 2)
    expect(await saved.textContent()).toContain(`by ${email}`)
    const time = saved.locator("time")
    const at = (await time.getAttribute("datetime"))!
    expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(60_000)
    expect(await time.textContent()).toBe(await page.evaluate((iso) => new Date(iso).toLocaleString(), at))
    // No schema yet: said, with nothing else claimed.
    for (const version of ["1.0.0", "1.1.0"]) {
      expect(await cell(version, 0).textContent()).toBe("No schema yet")
      expect(await cell(version, 1).textContent()).toBe("")
    }

    // The exact reference opens the version it names.
    await extended.getByRole("link", { name: `${base}/1.0.0` }).click()
    await page.waitForURL(`${served.base}/platforms/${base}/versions/1.0.0`)

    // A save in the editor shows on the platform page when it is next opened.
    await page.goto(`${served.base}/platforms/${app}/versions/1.0.0`)
    const editor = page.getByLabel("Content (JSON)")
    await editor.waitFor()
    await editor.fill(JSON.stringify({ "@extends": base, c: 3 }))
    await page
      .locator("#schema-content-check")
      .getByText(`Valid; it extends ${base}, with this content merged on top.`)
      .waitFor()
    await page.getByRole("button", { name: "Save schema" }).click()
    await page.getByRole("region", { name: "Saved" }).waitFor()
    await page.getByRole("navigation", { name: "Breadcrumb" }).getByRole("link", { name: app }).click()
    await cell("1.0.0", 0).getByText("Revision 1").waitFor()
    // `latest` by the platform alone moves with it: shown as written, not as a link.
    expect(await cell("1.0.0", 1).textContent()).toBe(base)
    expect(await cell("1.0.0", 1).getByRole("link").count()).toBe(0)
    expect(await cell("1.0.0", 2).textContent()).toContain(`by ${email}`)

    // Another save and a deletion elsewhere: the next load has them.
    await saveSchema(api, `${app}/2.0.0`, { "@extends": `${base}/1.0.0` })
    await api.call("DELETE", `/api/_ui/v1/platforms/${app}/versions/1.1.0`)
    await page.reload()
    await cell("2.0.0", 0).getByText("Revision 2").waitFor()
    expect(await cell("2.0.0", 1).getByRole("listitem").allTextContents()).toEqual([`${base}/1.0.0`])
    expect(await row("1.1.0").count()).toBe(0)
  })
})
