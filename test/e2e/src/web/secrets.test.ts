/**
 * The Secrets app's flows in Chromium against the built host (both hosts: `e2e-node` and `e2e-bun`): the grid
 * (present, missing, empty; filters; reveal only on request, copy, add, edit, delete; an edit starts from the value,
 * an add over a key says it replaces it, keys named `json` and `.env` reveal their own value; a stray Escape asks
 * before an unsaved edit goes, the keyboard focus stays where the person works, a secret deleted elsewhere is said
 * so), a read member's view,
 * history with reveal and restore, bulk import with its preview, comparing environments, and environments with
 * their downloads. Each test fails on a console error, a page error or a CSP violation (`browser.ts`).
 */
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import type { Locator, Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { coffer } from "../cliHarness.js"
import { runWebLogin } from "../cliLoginRun.js"
import { freshDirectory } from "../host.js"
import { chromiumAccessible, expectNotAnnounced } from "./a11y.js"
import { type ApiSession, addMember, apiAs, seedProject, signInPage } from "./api.js"
import { holdBack, POLL, useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("secrets")

let people = 0
/** A new person with an API session, and a page signed in as them at `path`. */
const person = async (path: string): Promise<{ api: ApiSession; page: Page; email: string }> => {
  const email = `person${++people}-${Date.now()}@example.com`
  const api = await apiAs(served.base, email)
  const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
  await signInPage(page, email)
  await page.waitForURL(`${served.base}${path}`)
  return { api, page, email }
}

const cellsOf = async (page: Page, key: string) =>
  (await page.getByRole("row", { name: key, exact: false }).first().locator("td").allTextContents()).map((text) =>
    text.trim(),
  )

interface AuditEntry {
  readonly action: string
  readonly targetKey: string
  readonly userEmail: string
}
const auditOf = async (api: ApiSession, slug: string) =>
  (await api.call<{ auditLog: ReadonlyArray<AuditEntry> }>("GET", `/api/projects/${slug}/audit-log`)).auditLog

describe("the secrets grid", () => {
  it("shows present, missing and empty; filters; reveals only on request; copies, adds, edits and deletes", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Grid ${people}`, {
      development: { API_URL: "https://dev.example", EMPTY_ONE: "" },
      staging: { API_URL: "https://staging.example" },
    })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("table", { name: /Secrets of/ }).waitFor()
    expect(await page.title()).toBe(`${slug} · Secrets – Coffer Secrets`)
    // Columns in the order the service lists environments: development, staging, production.
    expect(await page.locator("thead th").allTextContents()).toEqual(["Key", "development", "staging", "production"])
    expect(await cellsOf(page, "API_URL")).toEqual(["present", "present", "missing"])
    // A value saved empty elsewhere (through the API) says so from the first draw.
    expect(await cellsOf(page, "EMPTY_ONE")).toEqual(["empty", "missing", "missing"])
    // Nothing was read to draw the grid.
    expect((await auditOf(owner.api, slug)).filter((entry) => entry.action === "secret.read")).toEqual([])
    // On a phone every environment's cell is on the screen, named: none is past the edge of a sideways scroll.
    await page.setViewportSize({ width: 375, height: 800 })
    const phoneCells = page.getByRole("row", { name: /API_URL/ }).locator("td")
    for (const [index, name] of ["development", "staging", "production"].entries()) {
      const box = await phoneCells.nth(index).boundingBox()
      expect(box!.x + box!.width, name).toBeLessThanOrEqual(375)
      expect(await phoneCells.nth(index).evaluate((cell) => getComputedStyle(cell, "::before").content)).toBe(
        `"${name}: "`,
      )
    }
    await browser.screenshot(page, "secrets-grid-375")
    await page.setViewportSize({ width: 1440, height: 900 })

    await page.getByLabel("Filter by key").fill("empty")
    await page.getByText("1 of 2 keys").waitFor()
    await page.getByLabel("Filter by key").fill("")
    // Back to every key first, so that the "1 of 2 keys" below is the missing filter's, not the key filter's.
    await page.getByText("2 keys", { exact: true }).waitFor()
    await page.getByLabel("Show").selectOption({ label: "Missing in staging" })
    await page.getByText("1 of 2 keys").waitFor()
    expect(await page.getByRole("row", { name: /EMPTY_ONE/ }).count()).toBe(1)
    await page.getByLabel("Show").selectOption({ label: "All keys" })

    // Reveal and copy one value; the read is audited.
    await page.getByRole("button", { name: "API_URL" }).click()
    const dialog = page.getByRole("dialog", { name: "API_URL" })
    // The dialog grows downwards as values are revealed: its Close, and the controls above the value, stay where
    // they were (centred, it grew both ways, and moved them under the pointer).
    const close = dialog.getByRole("button", { name: "Close" })
    await close.waitFor()
    const closeBefore = await close.boundingBox()
    await dialog.getByRole("button", { name: "Reveal API_URL in development" }).click()
    await dialog.getByLabel("Value of API_URL in development").waitFor()
    expect(await close.boundingBox()).toEqual(closeBefore)
    expect(await dialog.getByLabel("Value of API_URL in development").textContent()).toBe("https://dev.example")
    await dialog.getByRole("button", { name: "Copy API_URL in development" }).click()
    await page.getByText("Copied to the clipboard").waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("https://dev.example")
    expect(await auditOf(owner.api, slug)).toContainEqual(
      expect.objectContaining({ action: "secret.read", targetKey: "API_URL" }),
    )

    // Edit staging, add production, delete development.
    await dialog.getByRole("button", { name: "Edit API_URL in staging" }).click()
    await dialog.getByLabel("New value of API_URL in staging").fill("https://staging2.example")
    await dialog.getByRole("button", { name: "Save" }).click()
    await page.getByText("Saved API_URL in staging (version 2)").waitFor()
    // The grid's lists are held back while production is added and development deleted, as on a slow network: the
    // dialog shows each change as soon as it is said, not the key as it was (missing with Add value, present with
    // Reveal and Delete) until the list comes back, drawn again then under the person's pointer.
    const release = await holdBack(
      page,
      `**/api/projects/${slug}/environments/*/secrets`,
      (request) => request.method() === "GET",
    )
    await dialog.getByRole("button", { name: "Add API_URL in production" }).click()
    await dialog.getByLabel("New value of API_URL in production").fill("https://prod.example")
    await dialog.getByRole("button", { name: "Save" }).click()
    await page.getByText("Saved API_URL in production (version 1)").waitFor()
    const production = dialog.getByRole("region", { name: "API_URL in production" })
    expect(await production.getByText("version 1,").count()).toBe(1)
    expect(await production.getByRole("button", { name: "Add API_URL in production" }).count()).toBe(0)
    expect(await production.getByLabel("Value of API_URL in production").textContent()).toBe("https://prod.example")
    await dialog.getByRole("button", { name: "Delete API_URL from development" }).click()
    await dialog.getByRole("button", { name: "Delete from development" }).click()
    await page.getByText("Deleted API_URL from development").waitFor()
    const development = dialog.getByRole("region", { name: "API_URL in development" })
    expect(await development.getByRole("button", { name: "Add API_URL in development" }).count()).toBe(1)
    expect(await development.getByRole("button", { name: /^Reveal|^Hide/ }).count()).toBe(0)
    // The route stays, letting every list through from now on.
    release()
    await dialog.getByRole("button", { name: "Close" }).click()
    // The grid is fetched again after each change, after its toast: until the last fetch has arrived the row may
    // still show production missing (before the add). Wait for the row's final state rather than any "missing".
    await expect.poll(() => cellsOf(page, "API_URL"), POLL).toEqual(["missing", "present", "present"])
    const staging = await owner.api.call<{ secret: { value: string } }>(
      "GET",
      `/api/projects/${slug}/environments/staging/secrets/API_URL`,
    )
    expect(staging.secret.value).toBe("https://staging2.example")

    // Its dialog says so as the list does, with nothing to reveal (nothing read, nothing audited); so it stays after
    // a reload.
    const readsBefore = (await auditOf(owner.api, slug)).filter((entry) => entry.action === "secret.read").length
    await page.getByRole("button", { name: "EMPTY_ONE" }).click()
    const empty = page.getByRole("region", { name: "EMPTY_ONE in development" })
    await empty.getByText("(empty value)").waitFor()
    expect(await empty.getByRole("button", { name: /^(Reveal|Hide|Copy) / }).count()).toBe(0)
    await page.getByRole("dialog").getByRole("button", { name: "Close" }).click()
    expect((await auditOf(owner.api, slug)).filter((entry) => entry.action === "secret.read").length).toBe(readsBefore)
    expect(await cellsOf(page, "EMPTY_ONE")).toEqual(["empty", "missing", "missing"])
    await page.reload()
    await page.getByRole("table", { name: /Secrets of/ }).waitFor()
    expect(await cellsOf(page, "EMPTY_ONE")).toEqual(["empty", "missing", "missing"])

    // Adding a secret from the toolbar.
    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    // The dialog opens on its key, so typing starts there; a key the service would refuse is said as it is typed,
    // and the message goes once the key is corrected.
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("name")), POLL).toBe("key")
    await page.keyboard.type("BAD KEY")
    await add.getByText(/^Secret key may contain only/).waitFor()
    expect(await add.getByRole("button", { name: "Save secret" }).isDisabled()).toBe(true)
    await add.getByLabel("Key").fill("NEW_KEY")
    expect(await add.getByText(/^Secret key may contain only/).count()).toBe(0)
    await add.getByLabel("Environment").selectOption("production")
    await add.getByLabel("Value").fill("fresh")
    // The lists come back slowly, as on a busy network: the key added is in the grid as soon as the toast says so.
    await page.route(`**/api/projects/${slug}/environments/*/secrets`, async (route) => {
      if (route.request().method() === "GET") await new Promise((resolve) => setTimeout(resolve, 300))
      await route.continue()
    })
    await add.getByRole("button", { name: "Save secret" }).click()
    await page.getByText("Added NEW_KEY to production").waitFor()
    expect(await cellsOf(page, "NEW_KEY")).toEqual(["missing", "missing", "present"])
  })

  it("draws the grid again for the environments there are now, once a refused change reads the project again", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Columns ${people}`, {
      development: { ONLY_DEV: "d" },
      production: { ONLY_PROD: "p" },
    })
    const memberEmail = `member${++people}-${Date.now()}@example.com`
    await addMember(owner.api, await apiAs(served.base, memberEmail), slug, "write")
    const path = `/projects/${slug}`
    const page = await browser.openOther(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
    await signInPage(page, memberEmail)
    await page.waitForURL(`${served.base}${path}`)
    await page.getByRole("table", { name: /Secrets of/ }).waitFor()
    // Meanwhile the owner deletes staging and lets the member only read: the member's next change is refused (403),
    // and the page reads the project again.
    const { members } = await owner.api.call<{ members: ReadonlyArray<{ userId: string; email: string }> }>(
      "GET",
      `/api/projects/${slug}/members`,
    )
    const memberId = members.find((entry) => entry.email === memberEmail)!.userId
    await owner.api.call("DELETE", `/api/projects/${slug}/environments/staging`)
    await owner.api.call("PATCH", `/api/projects/${slug}/members/${memberId}`, { role: "read" })
    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    await add.getByRole("textbox", { name: "Key", exact: true }).fill("REFUSED")
    await add.getByRole("button", { name: "Save secret" }).click()
    await add.getByRole("alert").waitFor()
    await page.keyboard.press("Escape")
    await page.getByRole("button", { name: "Discard and close" }).click()
    // Each key's cells stay under their own environment: production's key is not shown under staging's old place.
    await page.getByText("You can read this project").waitFor()
    await expect
      .poll(() => page.locator("thead th").allTextContents(), POLL)
      .toEqual(["Key", "development", "production"])
    expect(await cellsOf(page, "ONLY_PROD")).toEqual(["missing", "present"])
  })

  it("says when no key matches the filters, and shows every key again from there", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Filtered ${people}`, {
      development: { API_URL: "https://dev.example", TOKEN: "t" },
    })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("table", { name: /Secrets of/ }).waitFor()

    await page.getByLabel("Filter by key").fill("nothing-like-it")
    await page.getByText("No key matches “nothing-like-it”.").waitFor()
    expect(await page.getByRole("table", { name: /Secrets of/ }).count()).toBe(0)
    await page.getByLabel("Show").selectOption({ label: "Missing in staging" })
    await page.getByText("No key matches “nothing-like-it” among those missing in staging.").waitFor()
    await page.getByLabel("Filter by key").fill("")
    await page.getByLabel("Show").selectOption({ label: "Missing in development" })
    await page.getByText("Every key has a value in development.").waitFor()

    await page.getByRole("button", { name: "Show every key" }).click()
    await page.getByText("2 keys", { exact: true }).waitFor()
    expect(await page.getByRole("row", { name: /API_URL|TOKEN/ }).count()).toBe(2)
    expect(await page.getByLabel("Show").inputValue()).toBe("")
    // The button went with the message: the keyboard focus is where the filters are typed, not lost.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("secret-filter")
  })

  it("keeps the key filter and the Show choice in the address, through a reload", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Grid address ${people}`, {
      development: { DB_URL: "d", DB_USER: "u", API_URL: "a" },
      staging: { DB_URL: "s" },
    })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("table", { name: /Secrets of/ }).waitFor()
    const entries = await page.evaluate(() => history.length)
    await page.getByLabel("Filter by key").fill("db")
    await page.getByLabel("Show").selectOption({ label: "Missing in staging" })
    await page.getByText("1 of 3 keys").waitFor()
    await expect.poll(() => new URL(page.url()).search, POLL).toBe("?key=db&missing=staging")
    // Replaced in place: no history entry per keystroke or choice.
    expect(await page.evaluate(() => history.length)).toBe(entries)

    await page.reload()
    await page.getByText("1 of 3 keys").waitFor()
    expect(await page.getByLabel("Filter by key").inputValue()).toBe("db")
    expect(await page.getByLabel("Show").inputValue()).not.toBe("")
    expect(await page.getByRole("row", { name: /DB_USER/ }).count()).toBe(1)

    // Cleared, the address says nothing more.
    await page.getByLabel("Filter by key").fill("")
    await page.getByLabel("Show").selectOption({ label: "All keys" })
    await page.getByText("3 keys", { exact: true }).waitFor()
    await expect.poll(() => new URL(page.url()).search, POLL).toBe("")
  })

  it("edits from the current value, warns before adding over a key, and reveals keys named like the exports", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Kept ${people}`, {
      development: { KEEP: "kept", json: "j-value", ".env": "dot-value", TRICK: "\u202Elive", PLAIN: "live" },
    })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("table", { name: /Secrets of/ }).waitFor()

    // `GET …/secrets/json` and `…/.env` are the exports: each of these keys is read through its own history.
    for (const [key, value] of [
      ["json", "j-value"],
      [".env", "dot-value"],
    ] as const) {
      await page.getByRole("button", { name: key, exact: true }).click()
      const dialog = page.getByRole("dialog", { name: key })
      await dialog.getByRole("button", { name: `Reveal ${key} in development` }).click()
      expect(await dialog.getByLabel(`Value of ${key} in development`).textContent()).toBe(value)
      await dialog.getByRole("button", { name: "Close" }).click()
    }
    // A value drawn reversed by a control character is named as such beside it; a plain one is not.
    await page.getByRole("button", { name: "TRICK", exact: true }).click()
    const tricked = page.getByRole("dialog", { name: "TRICK" })
    await tricked.getByRole("button", { name: "Reveal TRICK in development" }).click()
    expect(await tricked.getByRole("note").textContent()).toMatch(/invisible or change the order .*\(U\+202E\)/)
    await tricked.getByRole("button", { name: "Close" }).click()
    await page.getByRole("button", { name: "PLAIN", exact: true }).click()
    const plain = page.getByRole("dialog", { name: "PLAIN" })
    await plain.getByRole("button", { name: "Reveal PLAIN in development" }).click()
    await plain.getByLabel("Value of PLAIN in development").waitFor()
    expect(await plain.getByRole("note").count()).toBe(0)
    await plain.getByRole("button", { name: "Close" }).click()
    const audit = await auditOf(owner.api, slug)
    expect(audit.filter((entry) => entry.action === "secrets.exported")).toEqual([])
    expect(audit).toContainEqual(expect.objectContaining({ action: "secret.read", targetKey: "json@1" }))
    expect(audit).toContainEqual(expect.objectContaining({ action: "secret.read", targetKey: ".env@1" }))

    // Edit starts from the value (read first, so audited), not from an empty field that would replace it.
    await page.getByRole("button", { name: "KEEP", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "KEEP" })
    await dialog.getByRole("button", { name: "Edit KEEP in development" }).click()
    const draft = dialog.getByLabel("New value of KEEP in development")
    await expect.poll(() => draft.inputValue(), POLL).toBe("kept")
    await draft.press("End")
    await draft.pressSequentially("-more")
    await dialog.getByRole("button", { name: "Save" }).click()
    await page.getByText("Saved KEEP in development (version 2)").waitFor()
    // The value saved is shown at once, not dropped until the list comes back with version 2 and drawn again: that
    // moved the dialog under the pointer, and a click on Close landed beside it.
    expect(await dialog.getByLabel("Value of KEEP in development").allTextContents()).toEqual(["kept-more"])
    await dialog.getByRole("button", { name: "Close" }).click()
    const saved = await owner.api.call<{ secret: { value: string } }>(
      "GET",
      `/api/projects/${slug}/environments/development/secrets/KEEP`,
    )
    expect(saved.secret.value).toBe("kept-more")

    // Adding a key that is there already says it replaces the value before anything is saved.
    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    await add.getByLabel("Key").fill("KEEP")
    await add.getByLabel("Environment").selectOption("development")
    await add.getByText("KEEP already has a value in development (version 2)").waitFor()
    expect(await add.getByRole("button", { name: "Save secret" }).count()).toBe(0)
    await add.getByLabel("Key").fill("KEEP_NEW")
    await add.getByRole("button", { name: "Save secret" }).waitFor()
  })

  it("never replaces or deletes unseen a value someone else saved or added meanwhile", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Together ${people}`, { development: { SHARED_KEY: "v1" } })
    const secrets = `/api/projects/${slug}/environments/development/secrets`
    const elsewhere = (key: string, value: string) => owner.api.call("POST", secrets, { key, value })
    const current = async (key: string) =>
      (await owner.api.call<{ secret: { value: string } }>("GET", `${secrets}/${key}`)).secret.value
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "SHARED_KEY", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "SHARED_KEY" })
    await dialog.getByRole("button", { name: "Reveal SHARED_KEY in development" }).click()
    await dialog.getByText("v1", { exact: true }).waitFor()
    await dialog.getByRole("button", { name: "Hide SHARED_KEY in development" }).click()

    // Revealed on a list that is behind: the newer value shows, under its own version.
    await elsewhere("SHARED_KEY", "v2")
    await dialog.getByRole("button", { name: "Reveal SHARED_KEY in development" }).click()
    await dialog.getByText("v2", { exact: true }).waitFor()
    await dialog.getByText(/^version 2, updated/).waitFor()

    // Edit reads afresh: the value revealed a moment ago is already outdated.
    await elsewhere("SHARED_KEY", "v3")
    await dialog.getByRole("button", { name: "Edit SHARED_KEY in development" }).click()
    const draft = dialog.getByLabel("New value of SHARED_KEY in development")
    await expect.poll(() => draft.inputValue(), POLL).toBe("v3")
    // Saved again elsewhere while editing: the service refuses the save made on version 3 (409), the dialog says
    // which version is there now and keeps the draft, and "Save anyway" replaces that version knowingly.
    await elsewhere("SHARED_KEY", "v4")
    await draft.fill("mine")
    const refused = page.waitForResponse((response) => response.request().method() === "POST")
    await dialog.getByRole("button", { name: "Save", exact: true }).click()
    expect((await refused).status()).toBe(409)
    expect((await refused).request().postDataJSON()).toEqual({ key: "SHARED_KEY", value: "mine", expectedVersion: 3 })
    const told = dialog.getByRole("alert")
    await told.filter({ hasText: "was saved by someone else" }).waitFor()
    expect(await told.textContent()).toBe(
      "SHARED_KEY in development was saved by someone else since you started editing (now version 4). Save anyway " +
        "replaces that value (it stays in the history), or cancel and reveal it again.",
    )
    // The grid caught up: the dialog's header shows the version the save found.
    await dialog.getByText(/^version 4, updated/).waitFor()
    expect(await current("SHARED_KEY")).toBe("v4")
    expect(await draft.inputValue()).toBe("mine")
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 })
      await browser.screenshot(page, `secrets-edit-changed-meanwhile-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    const replaced = page.waitForResponse((response) => response.request().method() === "POST")
    await dialog.getByRole("button", { name: "Save anyway" }).click()
    expect((await replaced).request().postDataJSON()).toMatchObject({ expectedVersion: 4 })
    await page.getByText("Saved SHARED_KEY in development (version 5)").waitFor()
    expect(await current("SHARED_KEY")).toBe("mine")

    // Saved elsewhere while the deletion is asked: the deletion named version 5, so nothing is deleted (409), the
    // dialog says so, and "Delete anyway" deletes the version it was told of.
    await dialog.getByText(/^version 5, updated/).waitFor()
    await dialog.getByRole("button", { name: "Delete SHARED_KEY from development" }).click()
    await elsewhere("SHARED_KEY", "v6")
    const kept = page.waitForResponse((response) => response.request().method() === "DELETE")
    await dialog.getByRole("button", { name: "Delete from development" }).click()
    expect([(await kept).status(), new URL((await kept).url()).search]).toEqual([409, "?expectedVersion=5"])
    await dialog.getByRole("alert").filter({ hasText: "nothing was deleted" }).waitFor()
    expect(await dialog.getByRole("alert").textContent()).toBe(
      "SHARED_KEY in development was saved by someone else since the list was loaded (now version 6), and nothing " +
        "was deleted. Delete anyway deletes that value too, or cancel and reveal it first.",
    )
    expect(await current("SHARED_KEY")).toBe("v6")
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 })
      await browser.screenshot(page, `secrets-delete-changed-meanwhile-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    const gone = page.waitForResponse((response) => response.request().method() === "DELETE")
    await dialog.getByRole("button", { name: "Delete anyway" }).click()
    expect([(await gone).status(), new URL((await gone).url()).search]).toEqual([200, "?expectedVersion=6"])
    await page.getByText("Deleted SHARED_KEY from development").waitFor()
    await dialog.getByRole("button", { name: "Close" }).click()

    // A key added elsewhere after the grid was drawn: the add says it replaces it before saving anything.
    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    await elsewhere("LATE_KEY", "theirs")
    await add.getByLabel("Key").fill("LATE_KEY")
    await add.getByLabel("Value").fill("ours")
    const created = page.waitForResponse((response) => response.request().method() === "POST")
    await add.getByRole("button", { name: "Save secret" }).click()
    // Sent as a new key (expectedVersion 0), which the service refuses: the key exists already.
    expect((await created).status()).toBe(409)
    expect((await created).request().postDataJSON()).toMatchObject({ expectedVersion: 0 })
    await add.getByText("LATE_KEY already has a value in development (version 1)").waitFor()
    expect(await current("LATE_KEY")).toBe("theirs")
    await add.getByRole("button", { name: "Replace value" }).click()
    await page.getByText("Updated LATE_KEY in development (version 2)").waitFor()
    expect(await current("LATE_KEY")).toBe("ours")
  })

  it("asks before a stray Escape throws an edit away, and keeps the keyboard focus where the person works", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Focus ${people}`, { development: { FOCUS_KEY: "before" } })
    const secrets = `/api/projects/${slug}/environments/development/secrets`
    const current = async () =>
      (await owner.api.call<{ secret: { value: string } }>("GET", `${secrets}/FOCUS_KEY`)).secret.value
    const focused = (page: Page) =>
      page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.tagName)
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "FOCUS_KEY", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "FOCUS_KEY" })

    // Reveal turns into Hide under the focus, and back.
    await dialog.getByRole("button", { name: "Reveal FOCUS_KEY in development" }).focus()
    await page.keyboard.press("Enter")
    await dialog.getByText("before", { exact: true }).waitFor()
    await expect.poll(() => focused(page), POLL).toBe("Hide FOCUS_KEY in development")
    await page.keyboard.press("Enter")
    await dialog.getByText("before", { exact: true }).waitFor({ state: "detached" })
    await expect.poll(() => focused(page), POLL).toBe("Reveal FOCUS_KEY in development")

    // Edit opens on its field, the value in it, for the keyboard to go on: the form appears in a dialog already
    // open, where the browser would not honour `autofocus` by itself.
    await dialog.getByRole("button", { name: "Edit FOCUS_KEY in development" }).focus()
    await page.keyboard.press("Enter")
    const draft = dialog.getByLabel("New value of FOCUS_KEY in development")
    await expect.poll(() => draft.inputValue(), POLL).toBe("before")
    await expect.poll(() => focused(page), POLL).toBe("TEXTAREA")

    // Escape with an unsaved edit asks; Go back returns to the draft, untouched.
    await draft.fill("half-typed")
    await page.keyboard.press("Escape")
    const question = dialog
      .getByRole("alert")
      .filter({ hasText: "The new value of FOCUS_KEY in development is not saved." })
    await question.waitFor()
    await expect.poll(() => focused(page), POLL).toBe("BUTTON")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Go back")
    await question.getByRole("button", { name: "Go back" }).click()
    await question.waitFor({ state: "detached" })
    await expect.poll(() => focused(page), POLL).toBe("TEXTAREA")
    expect(await draft.inputValue()).toBe("half-typed")

    // Saved: the focus goes back to the row's Edit button, and Escape closes at once (nothing is unsaved).
    await dialog.getByRole("button", { name: "Save", exact: true }).click()
    await page.getByText("Saved FOCUS_KEY in development (version 2)").waitFor()
    await expect.poll(() => focused(page), POLL).toBe("Edit FOCUS_KEY in development")
    expect(await current()).toBe("half-typed")

    // Asked to delete, the focus is on Cancel; Cancel brings it back to Edit.
    await dialog.getByRole("button", { name: "Delete FOCUS_KEY from development" }).click()
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), POLL).toBe("Cancel")
    await page.keyboard.press("Enter")
    await expect.poll(() => focused(page), POLL).toBe("Edit FOCUS_KEY in development")

    // An edit thrown away on purpose: Discard and close.
    await dialog.getByRole("button", { name: "Edit FOCUS_KEY in development" }).click()
    await expect.poll(() => draft.inputValue(), POLL).toBe("half-typed")
    await draft.fill("never saved")
    await dialog.getByRole("button", { name: "Close" }).click()
    await dialog.getByRole("button", { name: "Discard and close" }).click()
    await dialog.waitFor({ state: "detached" })
    expect(await current()).toBe("half-typed")

    // The same question guards the add dialog once something is typed, and only then.
    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    await add.getByLabel("Key").waitFor()
    await page.keyboard.press("Escape")
    await add.waitFor({ state: "detached" })
    await page.getByRole("button", { name: "Add secret" }).click()
    await add.getByLabel("Key").fill("TYPED_KEY")
    await page.keyboard.press("Escape")
    await add.getByRole("alert").filter({ hasText: "This secret is not saved yet." }).waitFor()
    expect(await add.getByLabel("Key").inputValue()).toBe("TYPED_KEY")
    await add.getByRole("button", { name: "Discard and close" }).click()
    await add.waitFor({ state: "detached" })

    // A form sent from its button with the keyboard keeps the focus on the button: busy, it is not disabled,
    // which would drop the focus to the page's body.
    await page.goto(`${served.base}/projects/${slug}/environments`)
    await page.getByLabel("Environment name").fill("qa")
    await page.getByRole("button", { name: "Add environment" }).focus()
    await page.keyboard.press("Enter")
    await page.getByText("Added qa").waitFor()
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent?.trim()), POLL)
      .toBe("Add environment")
  })

  it("asks before the page is closed or reloaded while an add or an edit holds a typed value", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Leave ${people}`, { development: { LEAVE_KEY: "before" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("table", { name: /Secrets of/ }).waitFor()
    // Whether closing or reloading the page now would ask first (the `beforeunload` event cancelled).
    const asksBeforeLeaving = () =>
      page.evaluate(() => {
        const event = new Event("beforeunload", { cancelable: true })
        window.dispatchEvent(event)
        return event.defaultPrevented
      })

    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    await add.getByLabel("Key").waitFor()
    expect(await asksBeforeLeaving()).toBe(false)
    await add.getByLabel("Key").fill("TYPED_KEY")
    await add.getByLabel("Value").fill("typed value")
    await expect.poll(asksBeforeLeaving, POLL).toBe(true)
    await add.getByRole("button", { name: "Close" }).click()
    await add.getByRole("button", { name: "Discard and close" }).click()
    await add.waitFor({ state: "detached" })
    await expect.poll(asksBeforeLeaving, POLL).toBe(false)

    await page.getByRole("button", { name: "LEAVE_KEY", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "LEAVE_KEY" })
    await dialog.getByRole("button", { name: "Edit LEAVE_KEY in development" }).click()
    const draft = dialog.getByLabel("New value of LEAVE_KEY in development")
    await expect.poll(() => draft.inputValue(), POLL).toBe("before")
    expect(await asksBeforeLeaving()).toBe(false)
    await draft.fill("half-typed")
    await expect.poll(asksBeforeLeaving, POLL).toBe(true)
    await dialog.getByRole("button", { name: "Save", exact: true }).click()
    await page.getByText("Saved LEAVE_KEY in development (version 2)").waitFor()
    await expect.poll(asksBeforeLeaving, POLL).toBe(false)
  })

  it("brings the grid up to date when a dialog finds a secret deleted elsewhere", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Gone ${people}`, { development: { GONE_KEY: "v1", STAYS: "s" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "GONE_KEY", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "GONE_KEY" })
    await dialog.getByText(/^version 1, updated/).waitFor()
    await owner.api.call("DELETE", `/api/projects/${slug}/environments/development/secrets/GONE_KEY`)

    await dialog.getByRole("button", { name: "Reveal GONE_KEY in development" }).click()
    await dialog
      .getByRole("alert")
      .filter({ hasText: "GONE_KEY is no longer in development: it was deleted since the list was loaded." })
      .waitFor()
    // The dialog and the grid behind it show what the service holds now.
    await dialog
      .getByRole("region", { name: "GONE_KEY in development" })
      .getByText("missing", { exact: true })
      .waitFor()
    await dialog.getByRole("button", { name: "Close" }).click()
    await expect.poll(() => page.getByRole("button", { name: "GONE_KEY", exact: true }).count(), POLL).toBe(0)
    await page.getByRole("button", { name: "STAYS", exact: true }).waitFor()

    // A secret's audit trail is one link away: the log filtered by its key and environment.
    await page.getByRole("button", { name: "STAYS", exact: true }).click()
    await page.getByRole("link", { name: "Audit trail of STAYS in development" }).click()
    await page.waitForURL(`${served.base}/projects/${slug}/audit?key=STAYS&environment=development`)
    await page.getByRole("cell", { name: "Created secret" }).waitFor()
    await expect.poll(() => page.locator("tbody tr").count(), POLL).toBe(1)
  })

  it("hides a revealed value once the key was deleted and added again elsewhere, with versions from 1 again", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Readded ${people}`, { development: { READDED: "old" } })
    const secrets = `/api/projects/${slug}/environments/development/secrets`
    await owner.api.call("POST", secrets, { key: "READDED", value: "older still" })
    await owner.api.call("POST", secrets, { key: "READDED", value: "old" })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "READDED", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "READDED" })
    const development = dialog.getByRole("region", { name: "READDED in development" })
    await development.getByRole("button", { name: "Reveal READDED in development" }).click()
    await development.getByLabel("Value of READDED in development").waitFor()
    expect(await development.getByLabel("Value of READDED in development").textContent()).toBe("old")
    // Deleted and added again elsewhere: version 1 of another secret, whose value this page never read.
    await owner.api.call("DELETE", `${secrets}/READDED`)
    await owner.api.call("POST", secrets, { key: "READDED", value: "new" })
    // A save in another environment reads the lists again.
    await dialog.getByRole("button", { name: "Add READDED in staging" }).click()
    await dialog.getByLabel("New value of READDED in staging").fill("s")
    await dialog.getByRole("button", { name: "Save", exact: true }).click()
    await development.getByText(/^version 1, updated/).waitFor()
    // The value read before is not shown, nor offered to copy, as version 1's.
    await development.getByRole("button", { name: "Reveal READDED in development" }).waitFor()
    expect(await development.getByLabel("Value of READDED in development").count()).toBe(0)
    expect(await development.getByRole("button", { name: "Copy READDED in development" }).count()).toBe(0)
  })

  it("keeps the header row in view while a long grid scrolls", async () => {
    const owner = await person("/projects")
    const values: Record<string, string> = {}
    for (let index = 0; index < 80; index++) values[`KEY_${String(index).padStart(3, "0")}`] = "v"
    const slug = await seedProject(owner.api, `Long ${people}`, { development: values })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("table", { name: /Secrets of/ }).waitFor()
    const box = page.locator(".grid-wrap")
    await box.evaluate((element) => element.scrollTo(0, element.scrollHeight))
    await expect.poll(() => box.evaluate((element) => element.scrollTop), POLL).toBeGreaterThan(0)
    const header = await page.locator(".grid thead th").first().boundingBox()
    const frame = await box.boundingBox()
    expect(Math.abs(header!.y - frame!.y)).toBeLessThanOrEqual(2)
    await page.getByRole("button", { name: "KEY_079" }).click()
    await page.getByRole("dialog", { name: "KEY_079" }).waitFor()
  })

  it("takes values in fields the browser neither spell-checks, corrects nor remembers", async () => {
    // The websec probe's finding: the Value fields were spell-checked (Chrome's enhanced spell check and Edge's
    // Microsoft Editor send that text to their services) and open to a phone keyboard's capitals.
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Value fields ${people}`, { development: { TOKEN: "t" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    const kept = (field: Locator) =>
      field.evaluate((element: HTMLTextAreaElement) => ({
        spellcheck: element.spellcheck,
        autocapitalize: element.getAttribute("autocapitalize"),
        autocorrect: element.getAttribute("autocorrect"),
        autocomplete: element.getAttribute("autocomplete"),
      }))
    const unchecked = { spellcheck: false, autocapitalize: "off", autocorrect: "off", autocomplete: "off" }
    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    expect(await kept(add.getByLabel("Value", { exact: true }))).toEqual(unchecked)
    await add.getByRole("button", { name: "Close" }).click()
    await page.getByRole("button", { name: "TOKEN", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "TOKEN" })
    await dialog.getByRole("button", { name: "Edit TOKEN in development" }).click()
    expect(await kept(dialog.getByLabel("New value of TOKEN in development"))).toEqual(unchecked)
    await dialog.getByRole("button", { name: "Close" }).click()
    await page.getByRole("button", { name: "Import…" }).click()
    const imports = page.getByRole("dialog", { name: "Import secrets" })
    expect(await kept(imports.getByLabel(/Or paste it here/))).toEqual(unchecked)
  })

  it("shows a read member no write controls", async () => {
    const owner = await apiAs(served.base, `owner-read-${Date.now()}@example.com`)
    const slug = await seedProject(owner, `Readable ${Date.now()}`, { development: { TOKEN: "t" } })
    const reader = await person("/projects")
    await addMember(owner, reader.api, slug, "read")
    const { page } = reader
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "TOKEN" }).click()
    await page.getByRole("button", { name: "Reveal TOKEN in development" }).click()
    await page.getByLabel("Value of TOKEN in development").waitFor()
    expect(await page.getByRole("button", { name: /^(Edit|Add|Delete)/ }).count()).toBe(0)
    await page.getByRole("dialog").getByRole("button", { name: "Close" }).click()
    expect(await page.getByRole("button", { name: "Add secret" }).count()).toBe(0)
    expect(await page.getByRole("button", { name: "Import…" }).count()).toBe(0)
    await page.getByRole("link", { name: "Environments" }).click()
    await page.getByRole("link", { name: "Download development as .env" }).waitFor()
    expect(await page.getByRole("button", { name: /Delete environment/ }).count()).toBe(0)
    // No column of row actions when there are none to show.
    expect(await page.getByRole("table", { name: "Environments" }).locator("thead th").count()).toBe(3)
    expect(await page.getByLabel("Environment name").count()).toBe(0)
  })
})

describe("an ended session", () => {
  /**
   * Follows the dialog's Sign in again to the new tab it opens, signs in there, checks that tab sends the person
   * back to the first one (a second copy of the page would not hold what was typed), and closes it.
   */
  const signInAgain = async (ended: Locator, email: string, path: string) => {
    const [signInTab] = await Promise.all([
      browser.context().waitForEvent("page"),
      ended.getByRole("link", { name: "Sign in again" }).click(),
    ])
    await signInTab.getByRole("heading", { name: "Sign in" }).waitFor()
    await signInPage(signInTab, email)
    await signInTab.waitForURL(`${served.base}/signed-in-again?page=${encodeURIComponent(path)}`)
    await signInTab.getByRole("heading", { name: "Signed in again" }).waitFor()
    expect(await signInTab.getByText("Go back to the tab where you were working").count()).toBe(1)
    const here = signInTab.getByRole("link", { name: "Open that page in this tab instead" })
    expect(await here.getAttribute("href")).toBe(path)
    await signInTab.close()
  }

  it("keeps the add dialog and its value, offers signing in again in a new tab, then saves", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Ended ${people}`, { development: { OLD: "x" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    await add.getByLabel("Key").fill("TYPED")
    await add.getByLabel("Value").fill("typed by hand")
    // Signed out elsewhere (another tab): the session is deleted on the server and its cookie cleared.
    await page.request.post(`${served.base}/api/auth/logout`)
    await add.getByRole("button", { name: "Save secret" }).click()
    const ended = add.getByRole("alert").filter({ hasText: "Your session ended." })
    await ended.waitFor()
    expect(new URL(page.url()).pathname).toBe(`/projects/${slug}`)
    expect(await add.getByLabel("Value").inputValue()).toBe("typed by hand")
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 800 })
      await browser.screenshot(page, `session-ended-dialog-${width}`)
    }
    // The sign-in page opens beside this one; this tab keeps the dialog.
    await signInAgain(ended, owner.email, `/projects/${slug}`)
    await add.getByRole("button", { name: "Save secret" }).click()
    await page.getByText("Added TYPED to development").waitFor()
    const stored = await owner.api.call<{ secret: { value: string } }>(
      "GET",
      `/api/projects/${slug}/environments/development/secrets/TYPED`,
    )
    expect(stored.secret.value).toBe("typed by hand")
    // Nothing typed was kept in the browser's storage.
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))).not.toContain(
      "typed by hand",
    )
  })

  it("keeps an edit's draft in the secret's dialog, then saves it once signed in again", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Ended edit ${people}`, { development: { KEEP: "kept" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "KEEP", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "KEEP" })
    await dialog.getByRole("button", { name: "Edit KEEP in development" }).click()
    const draft = dialog.getByLabel("New value of KEEP in development")
    await expect.poll(() => draft.inputValue(), POLL).toBe("kept")
    await draft.fill("edited by hand")
    await page.request.post(`${served.base}/api/auth/logout`)
    await dialog.getByRole("button", { name: "Save", exact: true }).click()
    const ended = dialog.getByRole("alert").filter({ hasText: "Your session ended." })
    await ended.waitFor()
    expect(await draft.inputValue()).toBe("edited by hand")
    await signInAgain(ended, owner.email, `/projects/${slug}`)
    await dialog.getByRole("button", { name: "Save", exact: true }).click()
    await page.getByText("Saved KEEP in development (version 2)").waitFor()
    const stored = await owner.api.call<{ secret: { value: string } }>(
      "GET",
      `/api/projects/${slug}/environments/development/secrets/KEEP`,
    )
    expect(stored.secret.value).toBe("edited by hand")
  })
})

describe("another tab", () => {
  /**
   * The owner's page with a secret typed into the add dialog, and `name`, a write member of the same project: were
   * the save taken as them, it would be stored.
   */
  const typingOwner = async (name: string) => {
    const owner = await person("/projects")
    const otherEmail = `${name}${++people}-${Date.now()}@example.com`
    const slug = await seedProject(owner.api, `Another tab ${people}`, { development: { OLD: "x" } })
    await addMember(owner.api, await apiAs(served.base, otherEmail), slug, "write")
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    await add.getByLabel("Key").fill("TYPED")
    await add.getByLabel("Value").fill("typed by the owner")
    return { owner, otherEmail, slug, page, add }
  }

  it("signing out or in as someone else there stops this tab sending, names who is signed in, and lets its person go on", async () => {
    const { owner, otherEmail, slug, page, add } = await typingOwner("carol")

    // A second tab of the same browser (one cookie jar) signs out, then signs in as carol.
    const other = await browser.open(`${served.base}/projects`)
    await other.getByRole("button", { name: "Sign out" }).click()
    await other.getByRole("heading", { name: "Sign in" }).waitFor()
    const notice = page.getByRole("alertdialog")
    await notice.filter({ hasText: "You are signed out" }).waitFor()
    await signInPage(other, otherEmail)
    await other.waitForURL(`${served.base}/projects`)
    await notice.filter({ hasText: `You are now signed in as ${otherEmail}` }).waitFor()
    expect(await notice.getByText(`This page was opened as ${owner.email}`).count()).toBe(1)
    await notice.getByRole("button", { name: "Reload" }).waitFor()
    // Escape does not take the notice away.
    await page.keyboard.press("Escape")
    expect(await notice.isVisible()).toBe(true)

    // Save is out of reach under the notice; pressed anyway (a script), nothing is sent as carol.
    await add.getByRole("button", { name: "Save secret" }).dispatchEvent("click")
    await add.getByRole("alert").filter({ hasText: "Nothing was sent" }).waitFor()
    const created = async () =>
      (await auditOf(owner.api, slug)).filter((entry) => entry.targetKey === "TYPED" && entry.action !== "secret.read")
    expect(await created()).toEqual([])
    expect(await add.getByLabel("Value").inputValue()).toBe("typed by the owner")

    // The page's person signs in again over there: the notice goes, and the same Save saves as them.
    await other.getByRole("button", { name: "Sign out" }).click()
    await signInPage(other, owner.email)
    await other.waitForURL(`${served.base}/projects`)
    await notice.waitFor({ state: "detached" })
    await add.getByRole("button", { name: "Save secret" }).click()
    await page.getByText("Added TYPED to development").waitFor()
    expect(await created()).toEqual([expect.objectContaining({ userEmail: owner.email })])
  })

  it("signed in as someone else without a word to this tab: the service refuses its save, and the tab asks who", async () => {
    const { owner, otherEmail, slug, page, add } = await typingOwner("dora")
    // The browser's cookie becomes dora's with no other tab of the app open and no change of visibility: nothing
    // tells this tab, so only the service can stop the save.
    const signIn = await page.request.post(`${served.base}/api/auth/dev-login`, { data: { email: otherEmail } })
    expect(signIn.status()).toBe(200)
    await add.getByRole("button", { name: "Save secret" }).click()
    await add.getByRole("alert").filter({ hasText: "Nothing was done" }).waitFor()
    await page
      .getByRole("alertdialog")
      .filter({ hasText: `You are now signed in as ${otherEmail}` })
      .waitFor()
    expect(await add.getByLabel("Value").inputValue()).toBe("typed by the owner")
    await expect(owner.api.call("GET", `/api/projects/${slug}/environments/development/secrets/TYPED`)).rejects.toThrow(
      /: 404 /,
    )
    expect(
      (await auditOf(owner.api, slug)).filter(
        (entry) => entry.targetKey === "TYPED" || (entry.userEmail === otherEmail && entry.action !== "member.joined"),
      ),
    ).toEqual([])
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 800 })
      await browser.screenshot(page, `session-someone-else-unheard-${width}`)
    }
  })

  it("hides the page under the notice: a value revealed before the sign-out is not left on screen", async () => {
    // The websec probe's finding: the notice's backdrop was translucent, so a value revealed in this tab stayed
    // readable after its person signed out in another, for whoever used the browser next.
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Hidden page ${people}`, {
      development: { TOKEN: "read-before-sign-out" },
    })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "TOKEN", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "TOKEN" })
    await dialog.getByRole("button", { name: "Reveal TOKEN in development" }).click()
    await dialog.getByLabel("Value of TOKEN in development").waitFor()

    const other = await browser.open(`${served.base}/projects`)
    await other.getByRole("button", { name: "Sign out" }).click()
    const notice = page.getByRole("alertdialog").filter({ hasText: "You are signed out" })
    await notice.waitFor()
    // The notice's backdrop covers everything beneath it, the revealed value's dialog included: it must be opaque.
    const backdrop = await notice.evaluate((element) => getComputedStyle(element, "::backdrop").backgroundColor)
    expect(backdrop).toMatch(/^rgb\(\d+, \d+, \d+\)$/)
    // The page is still there beneath it, for its person to go on with after signing in again.
    expect(await dialog.getByLabel("Value of TOKEN in development").textContent()).toBe("read-before-sign-out")
    await browser.screenshot(page, "session-signed-out-hides-page")
  })

  it("asks the service who is signed in when the tab is shown again, and says the session ended", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Shown again ${people}`, { development: { OLD: "x" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("table", { name: /Secrets of/ }).waitFor()
    // Signed out without a word to this tab (another browser window's sign-out clears the same cookie).
    await browser.context().clearCookies()
    await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")))
    const notice = page.getByRole("alertdialog").filter({ hasText: "You are signed out" })
    await notice.waitFor()
    await notice.getByRole("button", { name: "Reload" }).click()
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
  })
})

describe("a revealed value", () => {
  it("is not read aloud as it is revealed, in the grid, a history or a new API key, but is there to read", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Quiet ${people}`, { development: { QUIET: "whispered-value" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "QUIET", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "QUIET" })
    await dialog.getByRole("button", { name: "Reveal QUIET in development" }).click()
    const value = dialog.getByLabel("Value of QUIET in development")
    await value.waitFor()
    expect(await value.textContent()).toBe("whispered-value")
    await expectNotAnnounced(value)

    await dialog.getByRole("link", { name: "History of QUIET in development" }).click()
    await page.getByRole("button", { name: "Reveal version 1" }).click()
    await page.getByLabel("Value of version 1").waitFor()
    await expectNotAnnounced(page.getByLabel("Value of version 1"))

    await page.goto(`${served.base}/api-keys`)
    const form = page.getByRole("form", { name: "Create an API key" })
    await form.getByLabel("Key name").fill("quiet-key")
    await form.getByRole("button", { name: "Create API key" }).click()
    await page.getByLabel("API key quiet-key value").waitFor()
    await expectNotAnnounced(page.getByLabel("API key quiet-key value"))
  })
})

describe("history", () => {
  it("lists versions with who and when, reveals an old value and restores it as a new version", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `History ${people}`, { development: { KEY: "one" } })
    await owner.api.call("POST", `/api/projects/${slug}/environments/development/secrets`, { key: "KEY", value: "two" })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "KEY", exact: true }).click()
    await page.getByRole("link", { name: "History of KEY in development" }).click()
    await page.waitForURL(`${served.base}/projects/${slug}/environments/development/secrets/KEY/history`)
    const rows = page.getByRole("table", { name: "Versions, newest first" }).locator("tbody tr")
    await rows.nth(1).waitFor()
    expect(await rows.count()).toBe(2)
    expect(await rows.nth(0).textContent()).toContain(owner.email)
    // Ordinary writes say nothing of restores.
    expect(await rows.nth(0).textContent()).not.toContain("restored from")
    await page.getByRole("button", { name: "Reveal version 1" }).click()
    expect(await page.getByLabel("Value of version 1").textContent()).toBe("one")
    // The button turned into Hide under the focus.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")), POLL)
      .toBe("Hide version 1")
    expect(await page.getByRole("button", { name: "Restore version 2" }).count()).toBe(0)
    // A restore changes what every reader gets: it asks first, and Cancel changes nothing.
    await page.getByRole("button", { name: "Restore version 1" }).click()
    const ask = page.getByRole("dialog", { name: "Restore version 1 of KEY?" })
    expect(await ask.textContent()).toContain("Version 2, the value now, stays in the history")
    await ask.getByRole("button", { name: "Cancel" }).click()
    await ask.waitFor({ state: "detached" })
    expect(await rows.count()).toBe(2)
    await page.getByRole("button", { name: "Restore version 1" }).click()
    // The versions come back slowly, as on a busy network: the restore is said once the new version is listed.
    await page.route("**/secrets/KEY/versions", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 300))
      await route.continue()
    })
    await ask.getByRole("button", { name: "Restore version 1" }).click()
    await page.getByText("Restored version 1 of KEY as version 3").waitFor()
    expect(await rows.count()).toBe(3)
    // The focus comes back to the row's Restore button, not to the page's body.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")), POLL)
      .toBe("Restore version 1")
    // The new version says which one it brought back; the ones before it stay as they were.
    expect(await rows.nth(0).locator("th").textContent()).toBe("3 (current) restored from v1")
    expect(await rows.nth(1).textContent()).not.toContain("restored from")
    expect(await rows.nth(2).textContent()).not.toContain("restored from")
    expect(await auditOf(owner.api, slug)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: "secret.read", targetKey: "KEY@1" }),
        expect.objectContaining({ action: "secret.restored", targetKey: "KEY@1" }),
      ]),
    )
    const current = await owner.api.call<{ secret: { value: string; version: number } }>(
      "GET",
      `/api/projects/${slug}/environments/development/secrets/KEY`,
    )
    expect(current.secret).toMatchObject({ value: "one", version: 3 })
  })
  it.each(["read", "write"] as const)("offers restoring to a %s member only if they may", async (role) => {
    const owner = await apiAs(served.base, `history-owner-${++people}-${Date.now()}@example.com`)
    const slug = await seedProject(owner, `History ${role} ${people}`, { development: { KEY: "one" } })
    await owner.call("POST", `/api/projects/${slug}/environments/development/secrets`, { key: "KEY", value: "two" })
    const member = await person("/projects")
    await addMember(owner, member.api, slug, role)
    const { page } = member
    await page.goto(`${served.base}/projects/${slug}/environments/development/secrets/KEY/history`)
    await page.getByRole("button", { name: "Reveal version 1" }).waitFor()
    const hint = page.getByText("Revealing an old value is recorded in the audit log.")
    const mayRestore = role === "write"
    expect((await hint.textContent())?.includes("Restoring makes it the newest version.")).toBe(mayRestore)
    expect(await page.getByRole("button", { name: "Restore version 1" }).count()).toBe(mayRestore ? 1 : 0)
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 800 })
      await browser.screenshot(page, `history-${role}-${width}`)
    }
  })

  it("draws a revealed version's Copy button the size of Hide and Restore beside it", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `History buttons ${people}`, { development: { KEY: "one" } })
    await owner.api.call("POST", `/api/projects/${slug}/environments/development/secrets`, { key: "KEY", value: "two" })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}/environments/development/secrets/KEY/history`)
    await page.getByRole("button", { name: "Reveal version 1" }).click()
    const copy = page.getByRole("button", { name: "Copy version 1" })
    await copy.waitFor()
    const size = (name: string) =>
      page.getByRole("button", { name }).evaluate((button) => {
        const style = getComputedStyle(button)
        return { height: button.getBoundingClientRect().height, fontSize: style.fontSize, padding: style.padding }
      })
    const hide = await size("Hide version 1")
    expect(await size("Restore version 1")).toEqual(hide)
    expect(await size("Copy version 1")).toEqual(hide)
    // It still copies.
    await copy.click()
    await page.getByText("Copied to the clipboard").waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("one")
  })
})

describe("bulk import", () => {
  it("previews new, changed, unchanged, duplicate and invalid keys, then saves with progress", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Import ${people}`, { staging: { SAME: "s", CHANGE_ME: "old" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Import…" }).click()
    const dialog = page.getByRole("dialog", { name: "Import secrets" })
    await dialog.getByLabel("Into environment").selectOption("staging")
    const text = ["SAME=s", "CHANGE_ME=new", "NEW_ONE='multi", "line'", "DUP=1", "DUP=2", "bad key=x", "# done"]
    await dialog.getByLabel(/Or paste it here/).fill(text.join("\n"))
    await dialog.getByRole("button", { name: "Preview" }).click()
    const summary = dialog.getByText(/new, .* changed, .* unchanged/)
    await summary.waitFor()
    expect(await summary.textContent()).toBe(
      "2 new, 1 changed, 1 unchanged, 1 given more than once, 1 cannot be imported. Nothing is saved yet.",
    )
    expect(await dialog.getByRole("table", { name: "Cannot be imported" }).textContent()).toContain("bad key")
    // Nothing was written by the preview.
    const before = await owner.api.call<{ secrets: ReadonlyArray<unknown> }>(
      "GET",
      `/api/projects/${slug}/environments/staging/secrets`,
    )
    expect(before.secrets).toHaveLength(2)
    // The lists come back slowly, as on a busy network: the import is said done, and its dialog closes, once the grid
    // shows what it added.
    await page.route(`**/api/projects/${slug}/environments/*/secrets`, async (route) => {
      if (route.request().method() === "GET") await new Promise((resolve) => setTimeout(resolve, 300))
      await route.continue()
    })
    await dialog.getByRole("button", { name: "Import 3 secrets" }).click()
    await page.getByText("Imported 3 secrets into staging").waitFor()
    expect(await page.getByRole("row", { name: /NEW_ONE/ }).count()).toBe(1)
    const exported = await owner.api.call<Record<string, string>>(
      "GET",
      `/api/projects/${slug}/environments/staging/secrets/json`,
    )
    expect(exported).toEqual({ CHANGE_ME: "new", DUP: "2", NEW_ONE: "multi\nline", SAME: "s" })
    await page.getByRole("row", { name: /NEW_ONE/ }).waitFor()
  })

  it("saves the others but not a key changed after the preview, names it, and previews again", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Import meanwhile ${people}`, {
      development: { API_URL: "old", DATABASE_URL: "old" },
    })
    const secrets = `/api/projects/${slug}/environments/development/secrets`
    const elsewhere = (key: string, value: string) => owner.api.call("POST", secrets, { key, value })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Import…" }).click()
    const dialog = page.getByRole("dialog", { name: "Import secrets" })
    const file = ["API_URL=new", "DATABASE_URL=mine", "LOG_LEVEL=debug", "SENTRY_DSN=mine"]
    await dialog.getByLabel(/Or paste it here/).fill(file.join("\n"))
    await dialog.getByRole("button", { name: "Preview" }).click()
    await dialog.getByText("2 new, 2 changed, 0 unchanged. Nothing is saved yet.").waitFor()
    // Someone else saves one of the changed keys and adds one of the new ones after the preview.
    await elsewhere("DATABASE_URL", "theirs")
    await elsewhere("SENTRY_DSN", "theirs")
    await dialog.getByRole("button", { name: "Import 4 secrets" }).click()
    const outcome = dialog.getByText(/changed by someone else since the preview/)
    await outcome.waitFor()
    expect(await outcome.textContent()).toBe(
      "2 keys were changed by someone else since the preview, so they were not saved: DATABASE_URL (now version 2), " +
        "SENTRY_DSN (added, version 1). Preview again to compare the file with the values saved now, then import " +
        "what still differs.",
    )
    await dialog.getByText("Saved 2 of 4").waitFor()
    // The preview no longer says nothing is saved, and marks the keys left behind.
    await dialog.getByText("2 new, 2 changed, 0 unchanged.", { exact: true }).waitFor()
    const rows = await dialog
      .getByRole("table", { name: "Keys in the file" })
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => tr.textContent))
    expect(rows).toEqual(["API_URLchanged", "DATABASE_URLchanged not saved", "LOG_LEVELnew", "SENTRY_DSNnew not saved"])
    const exported = () => owner.api.call<Record<string, string>>("GET", `${secrets}/json`)
    expect(await exported()).toEqual({
      API_URL: "new",
      DATABASE_URL: "theirs",
      LOG_LEVEL: "debug",
      SENTRY_DSN: "theirs",
    })
    // What was written reached the grid; the dialog stays, offering Back or a fresh preview, never the spent import.
    await page
      .getByRole("table", { name: /Secrets of/ })
      .getByRole("row", { name: /LOG_LEVEL/ })
      .waitFor()
    expect(await dialog.getByRole("button", { name: /^Import/ }).count()).toBe(0)
    await dialog.getByRole("button", { name: "Back" }).waitFor()
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 })
      await dialog.getByRole("button", { name: "Preview again" }).scrollIntoViewIfNeeded()
      await browser.screenshot(page, `secrets-import-changed-meanwhile-${width}`)
    }
    await page.setViewportSize({ width: 1440, height: 900 })
    await dialog.getByRole("button", { name: "Preview again" }).click()
    await dialog.getByText("0 new, 2 changed, 2 unchanged. Nothing is saved yet.").waitFor()
    await dialog.getByRole("button", { name: "Import 2 secrets" }).click()
    await page.getByText("Imported 2 secrets into development").waitFor()
    expect(await exported()).toEqual({ API_URL: "new", DATABASE_URL: "mine", LOG_LEVEL: "debug", SENTRY_DSN: "mine" })
  })

  it("fails safe when a key changes between the preview's two reads", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Import between ${people}`, { development: { BETWEEN: "old" } })
    const secrets = `/api/projects/${slug}/environments/development/secrets`
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Import…" }).click()
    const dialog = page.getByRole("dialog", { name: "Import secrets" })
    await dialog.getByLabel(/Or paste it here/).fill("BETWEEN=mine")
    // The preview reads the versions and the values apart: someone saves the key just before the second read. Read in
    // that order, the versions are the older and the write is refused; the other way round it would land on a value
    // the preview never showed.
    let reads = 0
    const previewReads = (url: URL) => url.pathname === secrets || url.pathname === `${secrets}/json`
    await page.route(previewReads, async (route) => {
      if (++reads === 2) await owner.api.call("POST", secrets, { key: "BETWEEN", value: "theirs" })
      await route.continue()
    })
    await dialog.getByRole("button", { name: "Preview" }).click()
    await dialog.getByText("0 new, 1 changed, 0 unchanged. Nothing is saved yet.").waitFor()
    expect(reads).toBe(2)
    await page.unroute(previewReads)
    await dialog.getByRole("button", { name: "Import 1 secret" }).click()
    await dialog.getByText(/^1 key was changed by someone else since the preview/).waitFor()
    const { secret } = await owner.api.call<{ secret: { value: string; version: number } }>("GET", `${secrets}/BETWEEN`)
    expect(secret).toMatchObject({ value: "theirs", version: 2 })
  })

  it("shows a value imported empty as empty, as one added empty, without reading it", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Import empty ${people}`, { development: { WAS_SET: "old" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Import…" }).click()
    const dialog = page.getByRole("dialog", { name: "Import secrets" })
    // A comment right after `=`, as a .env.example leaves a value to fill in, is no value: not "# fill me in".
    await dialog
      .getByLabel(/Or paste it here/)
      .fill("BARE_EMPTY=\nQUOTED_EMPTY=''\nFILLED=x\nWAS_SET=\nTO_FILL= # fill me in")
    await dialog.getByRole("button", { name: "Preview" }).click()
    await dialog.getByRole("button", { name: "Import 5 secrets" }).click()
    await page.getByText("Imported 5 secrets into development").waitFor()
    await expect.poll(() => cellsOf(page, "BARE_EMPTY"), POLL).toEqual(["empty", "missing", "missing"])
    expect(await cellsOf(page, "QUOTED_EMPTY")).toEqual(["empty", "missing", "missing"])
    expect(await cellsOf(page, "TO_FILL")).toEqual(["empty", "missing", "missing"])
    expect(await cellsOf(page, "FILLED")).toEqual(["present", "missing", "missing"])
    // A value replaced by an empty one too (its version 2).
    expect(await cellsOf(page, "WAS_SET")).toEqual(["empty", "missing", "missing"])
    // The dialog says so too, as it does for a value added empty.
    await page.getByRole("button", { name: "BARE_EMPTY", exact: true }).click()
    await page.getByRole("dialog", { name: "BARE_EMPTY" }).getByText("(empty value)").waitFor()
    // Known from what the page wrote: nothing was read to say it.
    expect((await auditOf(owner.api, slug)).filter((entry) => entry.action === "secret.read")).toEqual([])
  })

  it("imports JSON numbers and true/false as text, says which, and explains null, arrays and objects", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Import JSON ${people}`, { development: { PORT: "8080" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Import…" }).click()
    const dialog = page.getByRole("dialog", { name: "Import secrets" })
    const file =
      '{"PORT": 8080, "DEBUG": true, "RATIO": 1.50, "NAME": "app", "NOTHING": null, "HOSTS": ["a"], "DB": {}}'
    await dialog.getByLabel(/Or paste it here/).fill(file)
    await dialog.getByRole("button", { name: "Preview" }).click()
    // 8080 is the text PORT holds already: unchanged.
    await dialog
      .getByText("3 new, 0 changed, 1 unchanged, 3 converted to text, 3 cannot be imported. Nothing is saved yet.")
      .waitFor()
    const converted = dialog.getByText(/^Numbers and true\/false are saved as text/)
    expect(await converted.textContent()).toBe(
      "Numbers and true/false are saved as text, as written in the file: PORT (number), DEBUG (true/false), " +
        "RATIO (number).",
    )
    const refused = dialog.getByRole("table", { name: "Cannot be imported" }).locator("tbody tr")
    const rows = await refused.evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
    )
    expect(rows).toEqual([
      ["5", "NOTHING", 'the value is null: write "" for an empty value'],
      ["6", "HOSTS", "the value is an array: a value is a string, a number or true/false"],
      ["7", "DB", "the value is an object: a value is a string, a number or true/false"],
    ])
    await dialog.getByRole("button", { name: "Import 3 secrets" }).click()
    await page.getByText("Imported 3 secrets into development").waitFor()
    const exported = await owner.api.call<Record<string, string>>(
      "GET",
      `/api/projects/${slug}/environments/development/secrets/json`,
    )
    expect(exported).toEqual({ DEBUG: "true", NAME: "app", PORT: "8080", RATIO: "1.50" })
  })

  it("moves the keyboard focus to the preview and back to Preview, never to the page's body", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Import keys ${people}`)
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Import…" }).click()
    const dialog = page.getByRole("dialog", { name: "Import secrets" })
    await dialog.getByLabel(/Or paste it here/).fill("ONE=1\nTWO=2")
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? "")
    await dialog.getByRole("button", { name: "Preview" }).focus()
    await page.keyboard.press("Enter")
    await dialog.getByText("2 new, 0 changed, 0 unchanged. Nothing is saved yet.").waitFor()
    await expect.poll(focused, POLL).toBe("2 new, 0 changed, 0 unchanged. Nothing is saved yet.")
    await dialog.getByRole("button", { name: "Back" }).focus()
    await page.keyboard.press("Enter")
    await expect.poll(focused, POLL).toBe("Preview")
  })

  it("reads a chosen JSON file, and keeps it through a stray Escape", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Import file ${people}`)
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Import…" }).click()
    const dialog = page.getByRole("dialog", { name: "Import secrets" })
    await dialog.getByText("the audit log records that as a JSON export", { exact: false }).waitFor()
    await dialog.getByLabel("Choose a .env or JSON file").setInputFiles({
      name: "secrets.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify({ FROM_FILE: "yes", OTHER: "too" })),
    })
    // A stray Escape does not throw the chosen file away.
    await expect.poll(() => dialog.getByLabel(/Or paste it here/).inputValue(), POLL).toContain("FROM_FILE")
    await page.keyboard.press("Escape")
    const question = dialog.getByRole("alert").filter({ hasText: "What you pasted or chose is not imported yet." })
    await question.getByRole("button", { name: "Go back" }).click()
    await question.waitFor({ state: "detached" })
    await dialog.getByRole("button", { name: "Preview" }).click()
    await dialog.getByText("2 new, 0 changed, 0 unchanged. Nothing is saved yet.").waitFor()
    await dialog.getByRole("button", { name: "Import 2 secrets" }).click()
    await page.getByText("Imported 2 secrets into development").waitFor()
  })
})

describe("compare", () => {
  it("shows keys only, then values on reveal", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Compare ${people}`, {
      development: { SHARED: "same", DIFFERS: "a", DEV_ONLY: "d" },
      staging: { SHARED: "same", DIFFERS: "b", STAGING_ONLY: "s" },
    })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}/compare`)
    await page.getByLabel("with").selectOption("staging")
    // An environment is not offered against itself.
    await expect
      .poll(() => page.getByLabel("Compare").locator("option", { hasText: "staging" }).isDisabled(), POLL)
      .toBe(true)
    const row = (key: string) => page.getByRole("row", { name: new RegExp(`^${key}`) })
    // Until staging's keys have arrived the table still holds development against production, which has a SHARED
    // row too ("only in development"): wait for staging's answer before reading the rows.
    await row("SHARED").filter({ hasText: "in both" }).waitFor()
    expect(await row("DEV_ONLY").textContent()).toContain("only in development")
    expect(await row("STAGING_ONLY").textContent()).toContain("only in staging")
    expect(await row("SHARED").textContent()).toContain("in both")
    expect((await auditOf(owner.api, slug)).filter((entry) => entry.action === "secret.read")).toEqual([])
    await page.getByRole("button", { name: "Reveal SHARED in development and staging" }).click()
    await row("SHARED").getByText("same value").waitFor()
    await page.getByRole("button", { name: "Reveal DIFFERS in development and staging" }).click()
    await row("DIFFERS").getByText("different values").waitFor()
    await page.getByLabel("Only keys missing on one side").check()
    await expect.poll(() => page.locator("tbody tr").count(), POLL).toBe(2)
    await page.getByLabel("with").selectOption("production")
    await row("SHARED").getByText("only in development").waitFor()
  })

  it("marks a value saved empty as empty, as the grid does, without reading it", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Compare empty ${people}`, {
      development: { BLANK: "", FILLED: "x" },
      staging: { FILLED: "y" },
    })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}/compare?compare=development&with=staging`)
    const row = (key: string) => page.getByRole("row", { name: new RegExp(`^${key}`) })
    await row("FILLED").filter({ hasText: "in both" }).waitFor()
    expect(await row("BLANK").locator("td").first().textContent()).toBe("empty")
    expect(await row("FILLED").locator("td").first().textContent()).toBe("present")
    expect((await auditOf(owner.api, slug)).filter((entry) => entry.action === "secret.read")).toEqual([])
  })

  it("keeps the two environments in the address: a reload or a link compares the same pair", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Compare address ${people}`, {
      staging: { STAGING_ONLY: "s" },
      production: { PROD_ONLY: "p" },
    })
    const { page } = owner
    const path = `/projects/${slug}/compare`
    await page.goto(`${served.base}${path}`)
    const entries = await page.evaluate(() => history.length)
    await page.getByLabel("with").selectOption("production")
    await page.getByLabel("Compare").selectOption("staging")
    await expect.poll(() => new URL(page.url()).search, POLL).toBe("?with=production&compare=staging")
    // Replaced in place: no history entry per choice.
    expect(await page.evaluate(() => history.length)).toBe(entries)
    const row = (key: string) => page.getByRole("row", { name: new RegExp(`^${key}`) })
    await row("STAGING_ONLY").filter({ hasText: "only in staging" }).waitFor()

    await page.reload()
    await row("PROD_ONLY").filter({ hasText: "only in production" }).waitFor()
    expect(await page.getByLabel("Compare").inputValue()).toBe("staging")
    expect(await page.getByLabel("with").inputValue()).toBe("production")

    // A link naming an environment that is not there compares the first ones instead.
    await page.goto(`${served.base}${path}?compare=gone&with=staging`)
    await row("STAGING_ONLY").filter({ hasText: "only in staging" }).waitFor()
    expect(await page.getByLabel("Compare").inputValue()).toBe("development")
    expect(await page.getByLabel("with").inputValue()).toBe("staging")
  })

  it("copies a missing key, a value revealed as different and every missing key, never over a change unseen", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Copy across ${people}`, {
      development: { DIFFERS: "a", DEV_ONLY: "d", DEV_TWO: "two", DEV_THREE: "three" },
      staging: { DIFFERS: "b", STAGING_ONLY: "s" },
    })
    const secretsOf = (env: string) => `/api/projects/${slug}/environments/${env}/secrets`
    const stored = async (env: string, key: string) =>
      (await owner.api.call<{ secret: { value: string; version: number } }>("GET", `${secretsOf(env)}/${key}`)).secret
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}/compare`)
    await page.getByLabel("with").selectOption("staging")
    const row = (key: string) => page.getByRole("row", { name: new RegExp(`^${key}\\b`) })
    await row("DIFFERS").filter({ hasText: "in both" }).waitFor()
    // The lists come back slowly from here, as on a busy network: a copy is said done once they are back, and its
    // button is gone by then, not left to be pressed again (refused then as a key that exists already).
    await page.route(`**${secretsOf("*")}`, async (route) => {
      if (route.request().method() === "GET") await new Promise((resolve) => setTimeout(resolve, 300))
      await route.continue()
    })

    // One key: read from development (audited), created in staging; the row now has it on both sides.
    const trail = async () =>
      (await auditOf(owner.api, slug))
        .filter((entry) => entry.targetKey === "DEV_ONLY")
        .map((entry) => entry.action)
        .sort()
    expect(await trail()).toEqual(["secret.created"])
    await page.getByRole("button", { name: "Copy to staging: DEV_ONLY from development" }).click()
    await page.getByText("Copied DEV_ONLY to staging").waitFor()
    expect(await row("DEV_ONLY").getByRole("button", { name: /^Copy/ }).count()).toBe(0)
    await row("DEV_ONLY").filter({ hasText: "in both" }).waitFor()
    // The button pressed is gone: the keyboard focus is on the row's Reveal, not at the top of the page.
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))
    expect(await focused()).toBe("Reveal DEV_ONLY in development and staging")
    expect(await trail()).toEqual(["secret.created", "secret.created", "secret.read"])
    expect(await stored("staging", "DEV_ONLY")).toMatchObject({ value: "d", version: 1 })

    // A value present on both sides is offered across only once revealed, and then over the version shown.
    expect(await row("DIFFERS").getByRole("button", { name: /^Copy/ }).count()).toBe(0)
    await page.getByRole("button", { name: "Reveal DIFFERS in development and staging" }).click()
    await row("DIFFERS").getByText("different values").waitFor()
    // Reveal turns into Hide under the focus.
    expect(await focused()).toBe("Hide DIFFERS")
    await page.getByRole("button", { name: "Copy to development: DIFFERS from staging" }).click()
    // Development moved on: the values revealed at the old versions are hidden, and nothing more is offered.
    await row("DIFFERS").getByRole("button", { name: "Reveal DIFFERS in development and staging" }).waitFor()
    expect(await row("DIFFERS").getByRole("button", { name: /^Copy/ }).count()).toBe(0)
    await row("DIFFERS").getByRole("button", { name: "Reveal DIFFERS in development and staging" }).click()
    await row("DIFFERS").getByText("same value").waitFor()
    expect(await stored("development", "DIFFERS")).toMatchObject({ value: "b", version: 2 })
    const replaced = await owner.api.call<{ secret: { value: string } }>(
      "GET",
      `${secretsOf("development")}/DIFFERS/versions/1`,
    )
    expect(replaced.secret.value).toBe("a")

    // Created in development behind the page's back: the copy is refused and what is there stays.
    await owner.api.call("POST", secretsOf("development"), { key: "STAGING_ONLY", value: "theirs" })
    await page.getByRole("button", { name: "Copy to development: STAGING_ONLY from staging" }).click()
    await row("STAGING_ONLY")
      .getByRole("alert")
      .filter({ hasText: /exists/ })
      .waitFor()
    expect(await stored("development", "STAGING_ONLY")).toMatchObject({ value: "theirs", version: 1 })
    // The row shows what is there now, and offers nothing over a value not revealed.
    await row("STAGING_ONLY").filter({ hasText: "in both" }).waitFor()
    expect(await row("STAGING_ONLY").getByRole("button", { name: /^Copy/ }).count()).toBe(0)

    // Every key only in development at once; one created in staging meanwhile is listed, not replaced.
    await owner.api.call("POST", secretsOf("staging"), { key: "DEV_THREE", value: "theirs" })
    await page.getByRole("button", { name: "Copy the 2 keys only in development to staging" }).click()
    const notCopied = page.getByRole("alert").filter({ hasText: "Not copied" })
    await notCopied.waitFor()
    expect(await notCopied.textContent()).toContain("DEV_THREE")
    expect(await notCopied.textContent()).not.toContain("DEV_TWO")
    await page.getByText("Copied 1 key to staging").waitFor()
    expect(await page.getByRole("button", { name: /^Copy the/ }).count()).toBe(0)
    expect(await stored("staging", "DEV_TWO")).toMatchObject({ value: "two", version: 1 })
    expect(await stored("staging", "DEV_THREE")).toMatchObject({ value: "theirs", version: 1 })
    // Nothing is left only on one side, so nothing is offered.
    await page.getByRole("button", { name: /^Copy the/ }).waitFor({ state: "detached" })
  })

  it("offers a member who may only read no copy", async () => {
    const owner = await apiAs(served.base, `owner-compare-${Date.now()}@example.com`)
    const slug = await seedProject(owner, `Compare read ${Date.now()}`, {
      development: { DEV_ONLY: "d" },
      staging: { STAGING_ONLY: "s" },
    })
    const reader = await person("/projects")
    await addMember(owner, reader.api, slug, "read")
    const { page } = reader
    await page.goto(`${served.base}/projects/${slug}/compare`)
    await page.getByLabel("with").selectOption("staging")
    await page
      .getByRole("row", { name: /^STAGING_ONLY\b/ })
      .filter({ hasText: "only in staging" })
      .waitFor()
    await page.getByRole("button", { name: "Reveal DEV_ONLY in development and staging" }).waitFor()
    expect(await page.getByRole("button", { name: /^Copy/ }).count()).toBe(0)
    expect(await page.getByText("copying a key").count()).toBe(0)
  })
})

describe("environments", () => {
  it("gives a checkout its secrets with the three commands it shows, run as shown", async () => {
    const owner = await person("/projects")
    const project = `Commands ${people}`
    const slug = await seedProject(owner.api, project, { development: { GREETING: "hello from coffer" } })
    await seedProject(owner.api, `Elsewhere ${people}`)
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}/environments`)
    const shown = page.getByRole("region", { name: "From the command line" })
    await shown.locator("pre.command").first().waitFor()
    const [login, init, run] = await shown.locator("pre.command").allTextContents()
    expect(login).toBe(`coffer login --web --url ${served.base}`)
    expect(run).toBe("coffer run -- npm start")
    // A machine of its own (its config directory) and a checkout of its own. Its output is a pipe, so the command
    // opens no browser: the person opens the link it prints, in the tab they are signed in with.
    const env = { XDG_CONFIG_HOME: freshDirectory(), HOME: freshDirectory() }
    const cwd = freshDirectory()
    const args = (command: string) => command.split(" ").slice(1)
    const signingIn = runWebLogin(args(login!), env)
    const { url } = await signingIn.printed
    const printed = new URL(url)
    await page.goto(`${served.base}${printed.pathname}${printed.search}`)
    const form = page.getByRole("form", { name: "Approve the command-line login" })
    await form.getByLabel("Project").selectOption({ label: project })
    await form.getByRole("button", { name: "Approve" }).click()
    const signedIn = await signingIn.outcome
    expect(signedIn.code, signedIn.stderr).toBe(0)
    // Without --name the key is named after the machine, so the API keys page tells one machine's from another's.
    const { apiKeys } = await owner.api.call<{ apiKeys: ReadonlyArray<{ name: string }> }>("GET", "/api/api-keys")
    expect(apiKeys.map((apiKey) => apiKey.name)).toEqual([`coffer on ${hostname()}`.slice(0, 64).trim()])
    const initialised = await coffer(args(init!), { env, cwd })
    expect(initialised.code, initialised.stderr).toBe(0)
    const ran = await coffer(
      [...args(run!).slice(0, -2), process.execPath, "-e", "process.stdout.write(process.env.GREETING)"],
      {
        env,
        cwd,
      },
    )
    expect([ran.code, ran.stdout]).toEqual([0, "hello from coffer"])
  })

  it("says a download is under way, and fetches it once when it is pressed again meanwhile", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Download once ${people}`, { development: { PLAIN: "v" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}/environments`)
    let sent = 0
    page.on("request", (request) => {
      if (new URL(request.url()).pathname.endsWith("/environments/development/secrets/.env")) sent++
    })
    const release = await holdBack(page, /\/environments\/development\/secrets\/\.env$/)
    const link = page.getByRole("link", { name: "Download development as .env" })
    await link.focus()
    await page.keyboard.press("Enter")
    await expect.poll(() => link.getAttribute("aria-busy"), POLL).toBe("true")
    await page.keyboard.press("Enter")
    const download = page.waitForEvent("download")
    release()
    expect((await download).suggestedFilename()).toBe("development.env")
    await expect.poll(() => link.getAttribute("aria-busy"), POLL).toBe(null)
    expect(sent).toBe(1)
  })

  it("adds one (and explains one that exists), downloads .env and JSON, and deletes with a typed name", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Envs ${people}`, { development: { PLAIN: "v", SPACED: "a b" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}/environments`)
    await page.getByLabel("Environment name").fill("qa")
    // The project (with its environments) comes back slowly, as on a busy network: the toast waits for it.
    await page.route(`**/api/projects/${slug}`, async (route) => {
      if (route.request().method() === "GET") await new Promise((resolve) => setTimeout(resolve, 300))
      await route.continue()
    })
    await page.getByRole("button", { name: "Add environment" }).click()
    await page.getByText("Added qa").waitFor()
    expect(await page.getByRole("row", { name: /^qa/ }).count()).toBe(1)
    // One the list shows is said under the field as it is typed, and not sent; so is a name the service refuses.
    await page.getByLabel("Environment name").fill("qa")
    await page.getByText("qa is an environment of this project already.").waitFor()
    expect(await page.getByRole("button", { name: "Add environment" }).isDisabled()).toBe(true)
    await page.getByLabel("Environment name").fill("qa env")
    await page
      .getByText('Environment name may contain only letters A-Z and a-z, digits, "_", "-" and "."; found " "')
      .waitFor()
    expect(await page.getByLabel("Environment name").getAttribute("aria-invalid")).toBe("true")
    // One added elsewhere since the list was drawn is the service's to refuse, where the person acted.
    await owner.api.call("POST", `/api/projects/${slug}/environments`, { name: "uat" })
    await page.getByLabel("Environment name").fill("uat")
    await page.getByRole("button", { name: "Add environment" }).click()
    await page.getByRole("alert").waitFor()
    expect(await page.getByRole("alert").textContent()).toMatch(/exists/i)
    // The field it is about says so, as when it is checked as it is typed, until the name changes.
    const field = page.getByLabel("Environment name")
    expect(await field.getAttribute("aria-invalid")).toBe("true")
    expect((await chromiumAccessible(field)).description).toMatch(/exists/i)
    await field.fill("uat2")
    expect(await field.getAttribute("aria-invalid")).toBe("false")
    expect((await chromiumAccessible(field)).description ?? "").not.toMatch(/exists/i)

    const [dotenv] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download development as .env" }).click(),
    ])
    expect(dotenv.suggestedFilename()).toBe("development.env")
    expect(readFileSync((await dotenv.path())!, "utf8")).toBe("PLAIN=v\nSPACED='a b'\n")
    const [json] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download development as JSON" }).click(),
    ])
    expect(json.suggestedFilename()).toBe("development.json")
    expect(JSON.parse(readFileSync((await json.path())!, "utf8"))).toEqual({ PLAIN: "v", SPACED: "a b" })

    await page.getByRole("button", { name: "Delete environment qa" }).click()
    const dialog = page.getByRole("dialog", { name: "Delete qa?" })
    await dialog.getByLabel("Type qa to confirm").fill("qa")
    await dialog.getByRole("button", { name: "Delete environment" }).click()
    await page.getByText("Deleted qa").waitFor()
    await page.getByRole("row", { name: /^qa/ }).waitFor({ state: "detached" })
    const after = await owner.api.call<{ environments: ReadonlyArray<{ name: string }> }>(
      "GET",
      `/api/projects/${slug}`,
    )
    expect(after.environments.map((environment) => environment.name)).not.toContain("qa")
  })

  it("adds one with a copy of another's secrets, read as one audited export", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Copied envs ${people}`, {
      development: { API_URL: "https://dev.example", SPACED: "two words", EMPTY: "" },
    })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}/environments`)
    await page.getByLabel("Environment name").fill("qa")
    await page.getByLabel("Start with").selectOption("A copy of development's secrets")
    await page.getByText("Copying reads development's values as one export").waitFor()
    await page.getByRole("button", { name: "Add environment" }).click()
    await page.getByText("Added qa with 3 secrets copied from development").waitFor()
    await page.getByRole("row", { name: /^qa/ }).waitFor()
    // Read as one export, as the command line's `environments create --copy-from` reads it; no value one by one.
    const trail = await auditOf(owner.api, slug)
    expect(trail.filter((entry) => entry.action === "secret.read")).toEqual([])
    expect(trail.filter((entry) => entry.action === "secrets.exported").map((entry) => entry.targetKey)).toEqual([
      "json",
    ])
    const exported = await owner.api.call<Record<string, string>>(
      "GET",
      `/api/projects/${slug}/environments/qa/secrets/json`,
    )
    expect(exported).toEqual({ API_URL: "https://dev.example", SPACED: "two words", EMPTY: "" })
    // An empty one is still the default.
    expect(await page.getByLabel("Start with").inputValue()).toBe("")

    // The source deleted after it was chosen: the environment is added, and the page says it holds nothing.
    await page.getByLabel("Environment name").fill("qa2")
    await page.getByLabel("Start with").selectOption("A copy of qa's secrets")
    await owner.api.call("DELETE", `/api/projects/${slug}/environments/qa`)
    await page.getByRole("button", { name: "Add environment" }).click()
    await page
      .getByRole("alert")
      .filter({ hasText: "Added qa2 without secrets: qa's could not be read. Environment not found" })
      .waitFor()
    await page.getByRole("row", { name: /^qa2/ }).waitFor()
    const empty = await owner.api.call<Record<string, string>>(
      "GET",
      `/api/projects/${slug}/environments/qa2/secrets/json`,
    )
    expect(empty).toEqual({})
  })

  it("leaves a download clicked with Ctrl, Cmd, Shift, Alt or the middle button to the browser", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Download clicks ${people}`, { development: { PLAIN: "v" } })
    const { page } = owner
    await page.goto(`${served.base}/projects/${slug}/environments`)
    const link = page.getByRole("link", { name: "Download development as JSON" })
    // The link is the export's own address, so that whatever the browser does with it fetches the export.
    const exportPath = `/api/projects/${slug}/environments/development/secrets/json`
    expect(await link.getAttribute("href")).toBe(exportPath)
    const downloadOf = async (click: () => Promise<void>) => {
      const [download] = await Promise.all([page.waitForEvent("download"), click()])
      return download
    }
    // A plain click is the page's: it fetches the file itself (to say a refusal) and hands it over as a blob.
    expect((await downloadOf(() => link.click())).url()).toMatch(/^blob:/)
    // Any other click is the browser's own, on the export's address: here (a link with `download`) a download.
    const clicks: ReadonlyArray<Parameters<typeof link.click>[0]> = [
      { modifiers: ["Control"] },
      { modifiers: ["Meta"] },
      { modifiers: ["Shift"] },
      { modifiers: ["Alt"] },
      { button: "middle" },
    ]
    for (const options of clicks) {
      const download = await downloadOf(() => link.click(options))
      expect(download.url(), JSON.stringify(options)).toBe(`${served.base}${exportPath}`)
      expect(JSON.parse(readFileSync((await download.path())!, "utf8"))).toEqual({ PLAIN: "v" })
    }
  })

  it("says why a download failed, and signs the person in again when the session ended", async () => {
    const owner = await person("/projects")
    const slug = await seedProject(owner.api, `Downloads ${people}`, { development: { PLAIN: "v" } })
    const { page } = owner
    const path = `/projects/${slug}/environments`
    await page.goto(`${served.base}${path}`)

    // The service unavailable: said on the page, not only in the browser's downloads (or saved as the file).
    await page.route("**/secrets/.env", (route) =>
      route.fulfill({ status: 503, contentType: "application/json", body: '{"error":"Database unavailable"}' }),
    )
    await page.getByRole("link", { name: "Download development as .env" }).click()
    await page.getByRole("alert").filter({ hasText: "The service is unavailable right now" }).waitFor()
    await page.unroute("**/secrets/.env")

    // The session ended: signing in comes back here, and the download then works.
    await browser.context().clearCookies()
    await page.getByRole("link", { name: "Download development as JSON" }).click()
    await page.waitForURL(/\/sign-in\?returnTo=/)
    await signInPage(page, owner.email)
    await page.waitForURL(`${served.base}${path}`)
    const [json] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download development as JSON" }).click(),
    ])
    expect(json.suggestedFilename()).toBe("development.json")
    expect(JSON.parse(readFileSync((await json.path())!, "utf8"))).toEqual({ PLAIN: "v" })
  })
})
