/**
 * A version's schema in the dashboard, in Chromium against the built host (`e2e-node` and `e2e-bun`): the Content
 * tab's editor (checked before saving with the API's words, the @extends help, a save showing the output and the
 * dependents it re-processed, an unresolved reference and a circular chain shown at the editor with where they
 * arise), the Output tab (each value with the schema it came from), the Inheritance tab (parents to the roots,
 * dependents) and the History tab (revisions, a diff of two, a diff of outputs across versions).
 */
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { brokenCells, chromiumAccessible } from "./a11y.js"
import { holdBack, POLL, useBrowser } from "./browser.js"
import { type SchemasApi, saveSchema, schemasAs, seedPlatforms, signedIn, unique } from "./dashboardApi.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("schemas")

interface Family {
  readonly api: SchemasApi
  readonly email: string
  readonly root: string
  readonly mid: string
  readonly leaf: string
}

/** root/1.0.0 ← mid/1.0.0 ← leaf/1.0.0 (through a range), each adding and overriding values. */
const family = async (): Promise<Family> => {
  const email = `schemas-${Date.now()}@example.com`
  const api = await schemasAs(served.base, email)
  const root = unique("root")
  const mid = unique("mid")
  const leaf = unique("leaf")
  await seedPlatforms(api, { [root]: ["1.0.0"], [mid]: ["1.0.0"], [leaf]: ["1.0.0"] })
  await saveSchema(api, `${root}/1.0.0`, { a: 1, nested: { x: 1, y: 1 } })
  await saveSchema(api, `${mid}/1.0.0`, { "@extends": `${root}/1.0.0`, nested: { y: 2 }, b: 2 })
  await saveSchema(api, `${leaf}/1.0.0`, { "@extends": [`${mid}/^1.0.0`], c: 3 })
  return { api, email, root, mid, leaf }
}

const editorOf = (page: Page) => page.getByLabel("Content (JSON)")
const checkOf = (page: Page) => page.locator("#schema-content-check")

describe("the Content tab", () => {
  it("checks the content as it is typed, saves, and shows the output and the re-processed dependents", async () => {
    const { api, email, root, mid, leaf } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    const editor = editorOf(page)
    await editor.waitFor()
    expect(JSON.parse(await editor.inputValue())).toEqual({ "@extends": `${root}/1.0.0`, nested: { y: 2 }, b: 2 })
    // The tab's title names the schema and the tab, so that tabs and history entries can be told apart.
    expect(await page.title()).toBe(`${mid} 1.0.0 · Content – Coffer Schemas`)
    const save = page.getByRole("button", { name: "Save schema" })

    await editor.fill('{\n  "b": 2,\n}')
    // The check under the editor said "Valid" a moment ago: wait for it to judge the new text.
    const syntax = checkOf(page).filter({ hasText: /^Not valid JSON at line 3, column 1: / })
    await syntax.waitFor()
    // The place is said once, by the page: not again by the browser's "at position 13 (line 3 column 1)".
    expect(await syntax.textContent()).not.toMatch(/position|line 3 column 1/)
    expect(await save.isDisabled()).toBe(true)
    await editor.fill("[1, 2]")
    await checkOf(page).getByText("Invalid schema content: content must be a plain JSON object, got an array").waitFor()
    await editor.fill('{ "@extends": 7 }')
    await checkOf(page).getByText("Invalid schema content: @extends must be a string or an array of strings").waitFor()
    await editor.fill('{ "@extends": "ios/1.0" }')
    await checkOf(page)
      .getByText(
        'Invalid @extends reference "ios/1.0": the spec must be an exact version, latest, ^<version>, ~<version> or >=<version>; it is not a semantic version (MAJOR.MINOR.PATCH, optionally -prerelease and +build)',
      )
      .waitFor()
    // A version written into the platform's place is named before a save, not called valid.
    await editor.fill('{ "@extends": "ios@^1.0.0" }')
    await checkOf(page)
      .getByText(
        "Invalid @extends reference \"ios@^1.0.0\": it is no platform name (only letters, digits, '.', '_' and '-' are allowed, starting with a letter or digit); a version spec follows a '/', as in base/^1.2.0",
      )
      .waitFor()
    expect(await save.isDisabled()).toBe(true)

    // The help on the reference forms.
    await page.getByText("How to write @extends").click()
    await page.getByText("the highest 1.2.y at or above 1.2.0").waitFor()

    // One reference reads as one; several say the order they merge in.
    await editor.fill(JSON.stringify({ "@extends": [`${root}/latest`, `${root}/1.0.0`] }))
    await checkOf(page)
      .getByText(`Valid; it extends ${root}/latest, ${root}/1.0.0 (merged in that order, then this content on top).`)
      .waitFor()
    const content = { "@extends": [`${root}/latest`], nested: { y: 5 }, b: 20 }
    await editor.fill(JSON.stringify(content))
    await checkOf(page).getByText(`Valid; it extends ${root}/latest, with this content merged on top.`).waitFor()
    await save.click()
    const saved = page.getByRole("region", { name: "Saved" })
    await saved.waitFor()
    expect(await saved.getByRole("list", { name: "Re-processed schemas" }).getByRole("link").allTextContents()).toEqual(
      [`${leaf}/1.0.0`],
    )
    expect(JSON.parse((await saved.locator("pre").textContent())!)).toEqual({ a: 1, nested: { x: 1, y: 5 }, b: 20 })
    expect(await api.call("GET", `/api/${leaf}/1.0.0`)).toMatchObject({
      output: { a: 1, nested: { x: 1, y: 5 }, b: 20, c: 3 },
    })
    await saved.getByRole("link", { name: `${leaf}/1.0.0` }).click()
    await page.waitForURL(`${served.base}/platforms/${leaf}/versions/1.0.0`)
  })

  it("announces the check when its verdict changes or the typing pauses, never on every keystroke", async () => {
    const { email, mid } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    const editor = editorOf(page)
    await editor.waitFor()
    await editor.fill('{ "b": 2 }')
    const said = page.locator("#schema-content-said")
    await said.filter({ hasText: /^Valid/ }).waitFor()
    // The field's description is the check as it stands, at once.
    const description = async () => (await chromiumAccessible(editor)).description
    expect(await description()).toBe("Valid JSON object; it extends nothing.")
    // Every change of the live region and of the visible line, in order.
    await page.evaluate(() => {
      const record = (id: string) => {
        const log: Array<string> = []
        ;(window as unknown as Record<string, Array<string>>)[id] = log
        const element = document.getElementById(id)!
        new MutationObserver(() => log.push(element.textContent ?? "")).observe(element, {
          childList: true,
          subtree: true,
          characterData: true,
        })
      }
      record("schema-content-said")
      record("schema-content-check")
    })
    const changes = (id: string) =>
      page.evaluate((name) => [...new Set((window as unknown as Record<string, Array<string>>)[name])], id)

    // Typing breaks the JSON (said at once), changes the message with each key (not said), and mends it (said).
    await editor.press("End")
    await editor.press("Backspace")
    await editor.pressSequentially(', "c": [1, 2, 3] }', { delay: 60 })
    await checkOf(page)
      .filter({ hasText: /^Valid/ })
      .waitFor()
    await said.filter({ hasText: /^Valid/ }).waitFor()
    const shown = await changes("schema-content-check")
    expect(shown.length).toBeGreaterThan(4)
    const heard = await changes("schema-content-said")
    expect(heard).toHaveLength(2)
    expect(heard[0]).toMatch(/^Not valid JSON/)
    expect(heard[1]).toBe("Valid JSON object; it extends nothing.")

    // Within one verdict, the message standing when the typing pauses is said, once.
    await editor.press("End")
    await editor.pressSequentially(" x", { delay: 60 })
    await expect.poll(async () => (await changes("schema-content-said")).length, POLL).toBe(3)
    const broken = (await changes("schema-content-said")).at(-1)
    expect(broken).toMatch(/^Not valid JSON/)
    await editor.press("Home")
    await editor.pressSequentially("[[", { delay: 60 })
    const standing = await checkOf(page).textContent()
    expect(standing).not.toBe(broken)
    expect(await changes("schema-content-said")).toHaveLength(3)
    await expect.poll(async () => (await changes("schema-content-said")).at(-1), POLL).toBe(standing)
    expect(await changes("schema-content-said")).toHaveLength(4)
    expect(await description()).toBe(standing)
  })

  it("keeps unsaved text across tabs and pages, says it is unsaved, and asks before the page is closed", async () => {
    const { api, email, mid } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    const editor = editorOf(page)
    await editor.waitFor()
    const saved = await editor.inputValue()
    const unsaved = page.getByRole("status").filter({ hasText: "Unsaved changes" })
    // Whether closing the page now would ask first (the `beforeunload` event cancelled).
    const asksBeforeLeaving = () =>
      page.evaluate(() => {
        const event = new Event("beforeunload", { cancelable: true })
        window.dispatchEvent(event)
        return event.defaultPrevented
      })
    expect(await unsaved.count()).toBe(0)
    expect(await asksBeforeLeaving()).toBe(false)

    await editor.fill('{ "typed": true }')
    await unsaved.waitFor()
    // The page listens for `beforeunload` from an effect, which runs after the notice is drawn.
    await expect.poll(asksBeforeLeaving, POLL).toBe(true)
    const tabs = page.getByRole("navigation", { name: "Schema" })
    await tabs.getByRole("link", { name: "Output" }).click()
    await page.waitForURL(/\/output$/)
    await tabs.getByRole("link", { name: "Content" }).click()
    expect(await editorOf(page).inputValue()).toBe('{ "typed": true }')
    // Even a full load of the page (a sign-in round trip does one) finds it.
    await page.reload()
    expect(await editorOf(page).inputValue()).toBe('{ "typed": true }')

    await unsaved.getByRole("button", { name: "Discard changes" }).click()
    await expect.poll(() => editorOf(page).inputValue(), POLL).toBe(saved)
    await unsaved.waitFor({ state: "detached" })
    await expect.poll(asksBeforeLeaving, POLL).toBe(false)

    await editorOf(page).fill('{ "saved": true }')
    await page.getByRole("button", { name: "Save schema" }).click()
    await page.getByRole("region", { name: "Saved" }).waitFor()
    expect(await unsaved.count()).toBe(0)
    await page.reload()
    expect(JSON.parse(await editorOf(page).inputValue())).toEqual({ saved: true })

    // Someone else saves meanwhile: the save says so, keeps the text, and replaces theirs only when asked.
    await saveSchema(api, `${mid}/1.0.0`, { theirs: true })
    await editorOf(page).fill('{ "mine": true }')
    await page.getByRole("button", { name: "Save schema" }).click()
    await page.getByRole("alert").filter({ hasText: "Someone saved" }).waitFor()
    expect(await api.call("GET", `/api/${mid}/1.0.0`)).toMatchObject({ content: { theirs: true } })
    await page.getByRole("button", { name: "Save anyway" }).click()
    await page.getByRole("region", { name: "Saved" }).waitFor()
    expect(await api.call("GET", `/api/${mid}/1.0.0`)).toMatchObject({ content: { mine: true } })

    // A draft taken up again after a reload remembers what it started from: a save made meanwhile is still seen.
    await page.reload()
    await editorOf(page).fill('{ "draft": true }')
    await unsaved.waitFor()
    await saveSchema(api, `${mid}/1.0.0`, { meanwhile: true })
    await page.reload()
    expect(await editorOf(page).inputValue()).toBe('{ "draft": true }')
    await tabs.getByRole("link", { name: "Output" }).click()
    await tabs.getByRole("link", { name: "Content" }).click()
    await page.getByRole("button", { name: "Save schema" }).click()
    await page.getByRole("alert").filter({ hasText: "Someone saved" }).waitFor()
    expect(await api.call("GET", `/api/${mid}/1.0.0`)).toMatchObject({ content: { meanwhile: true } })
  })

  it("takes 'Nothing has been saved' away with the first save, not when the page's reload comes back", async () => {
    const { api, email, root } = await family()
    await api.call("POST", `/api/${root}/versions`, { version: "2.0.0" })
    const page = await signedIn(browser, served.base, email, `/platforms/${root}/versions/2.0.0`)
    const nothing = page.getByText("Nothing has been saved for this version yet.")
    await nothing.waitFor()
    await editorOf(page).fill('{ "first": true }')
    // The page's read of the schema after the save, held back as a slow network does.
    const schemaRead = `${served.base}/api/_ui/v1/platforms/${root}/versions/2.0.0`
    const release = await holdBack(page, schemaRead)
    const save = page.getByRole("button", { name: "Save schema" })
    await save.click()
    await page.getByRole("region", { name: "Saved" }).waitFor()
    // It stayed until that read came back, then went, moving the editor and Save up under the pointer.
    expect(await nothing.count()).toBe(0)
    const settled = await save.boundingBox()
    const reloaded = page.waitForResponse(schemaRead)
    release()
    await reloaded
    // Drawn with what came back: two frames.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
    expect(await save.boundingBox()).toEqual(settled)
    await page.unroute(schemaRead)
  })

  it("shows a save's outcome on a tab clicked while it ran, and does not offer its text again as unsaved", async () => {
    const { api, email, mid } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    await editorOf(page).fill(JSON.stringify({ clicked: "away" }))
    // The save answers late, as on a slow network, and the person clicks Output meanwhile.
    const saveAddress = `${served.base}/api/${mid}/1.0.0`
    await page.route(saveAddress, async (route) => {
      if (route.request().method() === "PUT") await new Promise((resolve) => setTimeout(resolve, 500))
      await route.continue()
    })
    await page.getByRole("button", { name: "Save schema" }).click()
    const tabs = page.getByRole("navigation", { name: "Schema" })
    await tabs.getByRole("link", { name: "Output" }).click()
    const output = page.getByRole("table", { name: `Output of ${mid}/1.0.0` })
    await output.waitFor()
    // The Output tab read the schema before the save landed: the old output stood beside "Saved".
    expect(await output.locator("td.code-line").allTextContents()).toContain('  "clicked": "away"')
    expect(await api.call("GET", `/api/${mid}/1.0.0`)).toMatchObject({ content: { clicked: "away" } })
    await page.unroute(saveAddress)

    // Back in the editor the saved text is saved, not an unsaved change that a save calls someone else's.
    await tabs.getByRole("link", { name: "Content" }).click()
    await editorOf(page).waitFor()
    expect(JSON.parse(await editorOf(page).inputValue())).toEqual({ clicked: "away" })
    expect(await page.getByRole("status").filter({ hasText: "Unsaved changes" }).count()).toBe(0)
  })

  it("offers the choice, never an overwrite, when a save through the API crosses the tab's own save", async () => {
    const { api, email, mid } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    const editor = editorOf(page)
    await editor.waitFor()
    // While `cross` is set, another save lands after the tab read the schema to compare, just before the tab's save
    // reaches the service: only the revision the save names can tell the service that it was overtaken.
    let cross = true
    let crossings = 0
    await page.route(`**/api/${mid}/1.0.0`, async (route) => {
      if (route.request().method() === "PUT" && cross) {
        // Counted once it has landed: a count seen by the test then means their content is saved.
        await saveSchema(api, `${mid}/1.0.0`, { theirs: crossings + 1 })
        crossings++
      }
      await route.continue()
    })
    const overtaken = page.getByRole("alert").filter({ hasText: "Someone saved" })
    const saved = page.getByRole("region", { name: "Saved" })
    const current = async () => ((await api.call("GET", `/api/${mid}/1.0.0`)) as { content: unknown }).content
    await editor.fill('{ "mine": true }')
    await page.getByRole("button", { name: "Save schema" }).click()
    await overtaken.waitFor()
    expect(crossings).toBe(1)
    expect(await current()).toEqual({ theirs: 1 })
    expect(await editor.inputValue()).toBe('{ "mine": true }')
    // The choice, not the refusal's wording as an error.
    expect(await page.getByText("was saved since it was read").count()).toBe(0)
    expect(await saved.count()).toBe(0)

    // Crossed again while saving anyway: still not replaced unseen.
    await page.getByRole("button", { name: "Save anyway" }).click()
    await expect.poll(() => crossings, POLL).toBe(2)
    await overtaken.waitFor()
    expect(await current()).toEqual({ theirs: 2 })
    // Saving anyway on top of the revision the refusal named lands.
    cross = false
    await page.getByRole("button", { name: "Save anyway" }).click()
    await saved.waitFor()
    await overtaken.waitFor({ state: "detached" })
    expect(await current()).toEqual({ mine: true })

    // Or their content replaces the text, and editing starts again from their revision.
    cross = true
    await editor.fill('{ "mine": "again" }')
    await page.getByRole("button", { name: "Save schema" }).click()
    await overtaken.waitFor()
    await overtaken.getByRole("button", { name: "Load their content" }).click()
    await expect.poll(async () => JSON.parse(await editor.inputValue()), POLL).toEqual({ theirs: 3 })
    await overtaken.waitFor({ state: "detached" })
    cross = false
    await editor.fill('{ "mine": "after theirs" }')
    await page.getByRole("button", { name: "Save schema" }).click()
    await expect.poll(current, POLL).toEqual({ mine: "after theirs" })
    expect(await overtaken.count()).toBe(0)

    // Discarding after such a refusal shows what is saved now, theirs, not what the page was loaded with; and a
    // save from there lands at once.
    cross = true
    await editor.fill('{ "mine": "discarded" }')
    await page.getByRole("button", { name: "Save schema" }).click()
    await overtaken.waitFor()
    cross = false
    await page.getByRole("button", { name: "Discard changes" }).click()
    await expect.poll(async () => JSON.parse(await editor.inputValue()), POLL).toEqual({ theirs: 4 })
    await overtaken.waitFor({ state: "detached" })
    await editor.fill('{ "mine": "after discarding" }')
    await page.getByRole("button", { name: "Save schema" }).click()
    await expect.poll(current, POLL).toEqual({ mine: "after discarding" })
    expect(await overtaken.count()).toBe(0)
  })

  it("sends nothing once someone else signs in in another tab, and says who", async () => {
    const { api, email, mid } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    await editorOf(page).fill('{ "typed": "before" }')
    const before = await api.call("GET", `/api/${mid}/1.0.0`)
    // A second tab of the same browser signs out, then in as someone else.
    const other = await browser.open(`${served.base}/platforms`)
    await other.getByRole("button", { name: "Sign out" }).click()
    const someoneElse = `other-${Date.now()}@example.com`
    await other.getByLabel("E-mail").fill(someoneElse)
    await other.getByRole("button", { name: "Sign in as this e-mail" }).click()
    await other.waitForURL(`${served.base}/platforms`)
    const notice = page.getByRole("alertdialog").filter({ hasText: `You are now signed in as ${someoneElse}` })
    await notice.waitFor()
    await notice.getByRole("button", { name: "Reload" }).waitFor()
    await page.getByRole("button", { name: "Save schema" }).dispatchEvent("click")
    await page.getByRole("alert").filter({ hasText: "Nothing was sent" }).waitFor()
    expect(await api.call("GET", `/api/${mid}/1.0.0`)).toEqual(before)
  })

  it("keeps a draft for the person who typed it: the next person signed in in the tab does not get it", async () => {
    const { api, email, mid } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    const saved = await editorOf(page).inputValue()
    await editorOf(page).fill('{ "half": "done" }')
    await page.getByRole("status").filter({ hasText: "Unsaved changes" }).waitFor()
    await page.getByRole("button", { name: "Sign out" }).click()
    const next = `next-${Date.now()}@example.com`
    await page.getByLabel("E-mail").fill(next)
    await page.getByRole("button", { name: "Sign in as this e-mail" }).click()
    await page.waitForURL(`${served.base}/platforms`)
    await page.goto(`${served.base}/platforms/${mid}/versions/1.0.0`)
    await editorOf(page).waitFor()
    // It was offered to them as their own unsaved change, and a Save stored it under their name.
    expect(await editorOf(page).inputValue()).toBe(saved)
    expect(await page.getByRole("status").filter({ hasText: "Unsaved changes" }).count()).toBe(0)

    // The person who typed it finds it again after signing in.
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("E-mail").fill(email)
    await page.getByRole("button", { name: "Sign in as this e-mail" }).click()
    await page.waitForURL(`${served.base}/platforms`)
    await page.goto(`${served.base}/platforms/${mid}/versions/1.0.0`)
    await editorOf(page).waitFor()
    expect(await editorOf(page).inputValue()).toBe('{ "half": "done" }')
    expect(await api.call("GET", `/api/${mid}/1.0.0`)).toMatchObject({ content: JSON.parse(saved) })
  })

  it("signed in as someone else without a word to this tab: the service refuses its save, and the tab asks who", async () => {
    const { api, email, mid } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    await editorOf(page).fill('{ "typed": "by the page\'s person" }')
    const before = await api.call("GET", `/api/${mid}/1.0.0`)
    // The browser's cookie becomes someone else's with no other tab of the app open and no change of visibility:
    // nothing tells this tab, so only the service can stop the save.
    const someoneElse = `unheard-${Date.now()}@example.com`
    const signIn = await page.request.post(`${served.base}/api/auth/dev-login`, { data: { email: someoneElse } })
    expect(signIn.status()).toBe(200)
    await page.getByRole("button", { name: "Save schema" }).click()
    await page.getByRole("alert").filter({ hasText: "Nothing was done" }).waitFor()
    await page
      .getByRole("alertdialog")
      .filter({ hasText: `You are now signed in as ${someoneElse}` })
      .waitFor()
    expect(await api.call("GET", `/api/${mid}/1.0.0`)).toEqual(before)
  })

  it("shows an unresolved reference and a circular chain at the editor, with where they arise", async () => {
    const { api, email, root, mid, leaf } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${root}/versions/1.0.0`)
    const editor = editorOf(page)
    await editor.waitFor()
    await editor.fill(JSON.stringify({ a: 1, "@extends": `${mid}/9.0.0` }, null, 2))
    await page.getByRole("button", { name: "Save schema" }).click()
    const alert = page.getByRole("form", { name: "Schema content" }).getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(new RegExp(`^Unresolved @extends reference "${mid}/9.0.0"`))
    await page.getByText("The reference is on line 3.").waitFor()
    // The line under the editor says the refusal too, not that the content is valid beside it.
    const line = checkOf(page)
    const refused = "Not saved: the service refused this content, as said below."
    expect(await line.textContent()).toBe(refused)
    expect(await line.getAttribute("class")).toBe("hint invalid")
    expect(await editor.getAttribute("aria-invalid")).toBe("true")
    // Typing clears the refusal, and the line checks the new text.
    await editor.fill(JSON.stringify({ a: 1, "@extends": `${leaf}/1.0.0` }, null, 2))
    await alert.waitFor({ state: "detached" })
    expect(await line.textContent()).toBe(`Valid; it extends ${leaf}/1.0.0, with this content merged on top.`)
    expect(await editor.getAttribute("aria-invalid")).toBe("false")
    await page.getByRole("button", { name: "Save schema" }).click()
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/^Circular dependency detected: /)
    const places = page.getByText("Where it arises:")
    await places.waitFor()
    expect(await places.getByRole("link").allTextContents()).toEqual([`${leaf}/1.0.0`, `${mid}/1.0.0`])
    expect(await line.textContent()).toBe(refused)
    await browser.screenshot(page, "dashboard-content-refused")
    // Nothing was saved.
    expect(await api.call("GET", `/api/${root}/1.0.0`)).toMatchObject({ content: { a: 1, nested: { x: 1, y: 1 } } })
  })
})

describe("the Output, Inheritance and History tabs", () => {
  it("keeps the tabs where they were while the next tab's schema loads", async () => {
    const { email, mid } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    await editorOf(page).waitFor()
    // The schema's read, held back as a slow network does, until the tabs were looked at.
    const schemaRead = `${served.base}/api/_ui/v1/platforms/${mid}/versions/1.0.0`
    const release = await holdBack(page, schemaRead)
    const tabs = page.getByRole("navigation", { name: "Schema" })
    const before = await tabs.getByRole("link", { name: "Inheritance" }).boundingBox()
    await tabs.getByRole("link", { name: "Output" }).click()
    await page.getByText("Loading the schema…").waitFor()
    // They went while it loaded and came back under the pointer: a second click meant for a tab landed beside it.
    expect(await tabs.getByRole("link", { name: "Output" }).getAttribute("aria-current")).toBe("page")
    // Where it was, give or take the half pixel the current tab's bold label takes.
    const during = await tabs.getByRole("link", { name: "Inheritance" }).boundingBox()
    expect(during?.y).toBe(before?.y)
    expect(Math.abs(during!.x - before!.x)).toBeLessThan(2)
    release()
    await page.getByRole("table", { name: `Output of ${mid}/1.0.0` }).waitFor()
    await page.unroute(schemaRead)

    // Refused, then tried again: Try again says it is at work until the answer, where the refusal stood unchanged.
    let refuse = true
    let retried: () => void = () => undefined
    const retrying = new Promise<void>((resolve) => {
      retried = resolve
    })
    await page.route(schemaRead, async (route) => {
      if (refuse) {
        return route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ error: "Down" }) })
      }
      await retrying
      await route.continue()
    })
    await tabs.getByRole("link", { name: "History" }).click()
    const again = page.getByRole("button", { name: "Try again" })
    await again.waitFor()
    refuse = false
    await again.click()
    await expect.poll(() => again.getAttribute("aria-busy"), POLL).toBe("true")
    retried()
    await page.getByRole("table", { name: "Revisions, newest first" }).waitFor()
    await page.unroute(schemaRead)
  })

  it("marks each output value with the schema it came from", async () => {
    const { email, root, mid, leaf } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${leaf}/versions/1.0.0/output`)
    const table = page.getByRole("table", { name: `Output of ${leaf}/1.0.0` })
    await table.waitFor()
    const rows = await table
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [tr.children[0]!.textContent!.trim(), tr.children[1]!.textContent!.trim()]))
    expect(rows).toEqual([
      ["{", ""],
      ['"a": 1,', `${root}/1.0.0`],
      ['"nested": {', ""],
      ['"x": 1,', `${root}/1.0.0`],
      ['"y": 2', `${mid}/1.0.0`],
      ["},", ""],
      ['"b": 2,', `${mid}/1.0.0`],
      ['"c": 3', "this schema"],
      ["}", ""],
    ])
    await table
      .getByRole("link", { name: `${mid}/1.0.0` })
      .first()
      .click()
    await page.waitForURL(`${served.base}/platforms/${mid}/versions/1.0.0`)
  })

  it("says how a service reads the output: the curl command as shown answers it, and the output copies as JSON", async () => {
    const { api, email, leaf } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${leaf}/versions/1.0.0/output`)
    const readIt = page.getByRole("region", { name: "Read it from a service or a CI job" })
    const commands = readIt.locator("pre.command")
    await commands.first().waitFor()
    const [curl, coffer] = await commands.allTextContents()
    expect(coffer).toBe(`COFFER_SCHEMAS_URL=${served.base} coffer schemas get ${leaf}/1.0.0`)
    // The command as shown, with a token in its variable: the address and header it names answer the output.
    const { token } = await api.call<{ token: string }>("POST", "/api/_ui/v1/tokens", { name: unique("reader") })
    const [, name, value, url] = /-H "([^:]+): ([^"]+)" (\S+)$/.exec(curl!)!
    const answer = await fetch(url!, { headers: { [name!]: value!.replace("$COFFER_SCHEMAS_TOKEN", token) } })
    expect(answer.status).toBe(200)
    const { output } = (await answer.json()) as { output: unknown }
    expect(output).toEqual({ a: 1, nested: { x: 1, y: 2 }, b: 2, c: 3 })
    await readIt.getByRole("button", { name: "Copy the output as JSON" }).click()
    await page.getByText("Copied to the clipboard").first().waitFor()
    expect(JSON.parse(await page.evaluate(() => navigator.clipboard.readText()))).toEqual(output)
  })

  it("shows the parents up to the root and the dependents", async () => {
    const { api, email, root, mid, leaf } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${leaf}/versions/1.0.0/inheritance`)
    const chain = page.getByRole("list", { name: "Inheritance chain" })
    await chain.waitFor()
    const items = chain.locator(":scope > li")
    expect(await items.count()).toBe(3)
    expect(await items.nth(0).textContent()).toBe(`${leaf}/1.0.0 this schemaextends ${mid}/^1.0.0 → ${mid}/1.0.0`)
    // The schema on screen is named, not linked to the page it is on; its parents are links.
    expect(await items.nth(0).locator(":scope > a").count()).toBe(0)
    expect(await items.nth(1).locator(":scope > a").textContent()).toBe(`${mid}/1.0.0`)
    expect(await items.nth(1).textContent()).toBe(`${mid}/1.0.0extends ${root}/1.0.0 → ${root}/1.0.0`)
    expect(await items.nth(2).textContent()).toBe(`${root}/1.0.0root`)
    await page.getByText("No schema extends this one: a save here re-processes nothing else.").waitFor()

    await page.goto(`${served.base}/platforms/${root}/versions/1.0.0/inheritance`)
    await page.getByText("This schema extends nothing: it is a root.").waitFor()
    const dependents = page.getByRole("list", { name: "Dependents" })
    await dependents.waitFor()
    expect(await dependents.locator(":scope > li > a").allTextContents()).toEqual([`${mid}/1.0.0`, `${leaf}/1.0.0`])
    await page.getByText("A save here re-processes these 2 schemas, in this order:").waitFor()
    // One dependent is named as one.
    await page.goto(`${served.base}/platforms/${mid}/versions/1.0.0/inheritance`)
    await page.getByText("A save here re-processes this schema:").waitFor()

    // The parents answer last, as on a slow network: the dependents wait for them rather than be drawn and then
    // moved down under the pointer as the chain comes in above them.
    const parents = `${served.base}/api/_ui/v1/platforms/${mid}/versions/1.0.0/ancestors`
    const release = await holdBack(page, parents)
    const answered = page.waitForResponse(/\/dependents$/)
    await page.reload()
    await answered
    await page.getByText("Loading the parents…").waitFor()
    expect(await page.getByRole("list", { name: "Dependents" }).count()).toBe(0)
    release()
    await chain.waitFor()
    await page.getByText("A save here re-processes this schema:").waitFor()
    await page.unroute(parents)

    // A parent whose schema was never saved merges in as `{}`, and says so.
    await api.call("POST", `/api/${root}/versions`, { version: "2.0.0" })
    await saveSchema(api, `${leaf}/1.0.0`, { "@extends": `${root}/2.0.0`, c: 3 })
    await page.goto(`${served.base}/platforms/${leaf}/versions/1.0.0/inheritance`)
    await chain.waitFor()
    expect(await items.nth(1).textContent()).toBe(`${root}/2.0.0no schema savedroot`)
  })

  it("offers no comparison of revisions for a schema saved once, and says why", async () => {
    const { email, root } = await family()
    const page = await signedIn(browser, served.base, email, `/platforms/${root}/versions/1.0.0/history`)
    const revisions = page.getByRole("table", { name: "Revisions, newest first" })
    await revisions.waitFor()
    expect(await revisions.locator("tbody th").allTextContents()).toEqual(["1 (current)"])
    // The one revision is the current one: nothing to restore.
    expect(await page.getByRole("button", { name: /^Restore revision/ }).count()).toBe(0)
    await page.getByText("One revision so far: a second save gives two to compare.").waitFor()
    // Nothing offers revision 1 against itself.
    expect(await page.getByRole("heading", { name: "Compare two revisions" }).count()).toBe(0)
    expect(await page.getByLabel("From", { exact: true }).count()).toBe(0)
    expect(await page.getByText(/revision 1 to revision 1/).count()).toBe(0)
    // Comparing the output with another version's is still offered.
    await page.getByLabel("Other version", { exact: true }).waitFor()
  })

  it("lists revisions, diffs any two, and diffs the output against another version's", async () => {
    const { api, email, root, mid } = await family()
    await saveSchema(api, `${mid}/1.0.0`, { "@extends": `${root}/1.0.0`, nested: { y: 3 }, b: 2, d: 4 })
    await api.call("POST", `/api/${root}/versions`, { version: "2.0.0" })
    // The revisions' contents held back, as on a slow network: the comparison of outputs below them waits for
    // their diff, rather than be drawn at the top and pushed down by the list and the diff as they come.
    const contents = /\/revisions\/\d+$/
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0`)
    const release = await holdBack(page, contents)
    await page.getByRole("navigation", { name: "Schema" }).getByRole("link", { name: "History" }).click()
    const revisions = page.getByRole("table", { name: "Revisions, newest first" })
    await revisions.waitFor()
    const compareOutputs = page.getByRole("region", { name: "Compare the output with another version" })
    expect(await compareOutputs.count()).toBe(0)
    release()
    await compareOutputs.waitFor()
    await page.unroute(contents)
    expect(await revisions.locator("tbody th").allTextContents()).toEqual(["2 (current)", "1"])
    expect(await revisions.locator("tbody tr").first().textContent()).toContain(email)

    const diff = page.getByRole("table", { name: "Content, revision 1 to revision 2" })
    await diff.waitFor()
    expect(await diff.locator("tr.diff-added td.diff-text").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('"d": 4'), expect.stringContaining('"y": 3')]),
    )
    expect(await diff.locator("tr.diff-removed td.diff-text").allTextContents()).toEqual([
      expect.stringContaining('"y": 2'),
    ])
    // The same revision on both sides: no differences.
    await page.getByLabel("From", { exact: true }).selectOption("2")
    await page.getByText("Content, revision 2 to revision 2: no differences").waitFor()

    await page.getByLabel("Other version", { exact: true }).selectOption(`${root}/1.0.0`)
    const outputs = page.getByRole("table", { name: `Output, ${root}/1.0.0 to ${mid}/1.0.0` })
    await outputs.waitFor()
    expect(await outputs.locator("tr.diff-added td.diff-text").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('"b": 2'), expect.stringContaining('"d": 4')]),
    )
    // A version with no saved schema has no output: said so, and the last diff is not shown under its name.
    await page.getByLabel("Other version", { exact: true }).selectOption(`${root}/2.0.0`)
    await page.getByText(`${root}/2.0.0 has no saved schema yet, so it has no output to compare with.`).waitFor()
    expect(await page.getByRole("table", { name: /^Output, / }).count()).toBe(0)
  })

  it("restores a revision after showing what it changes; a save made meanwhile is said, never replaced", async () => {
    const { api, email, root, mid, leaf } = await family()
    await saveSchema(api, `${mid}/1.0.0`, { "@extends": `${root}/1.0.0`, nested: { y: 3 }, b: 2 })
    const page = await signedIn(browser, served.base, email, `/platforms/${mid}/versions/1.0.0/history`)
    const revisions = page.getByRole("table", { name: "Revisions, newest first" })
    await revisions.waitFor()
    expect(await revisions.locator("tbody th").allTextContents()).toEqual(["2 (current)", "1"])
    expect(await page.getByRole("button", { name: "Restore revision 2" }).count()).toBe(0)

    await page.getByRole("button", { name: "Restore revision 1" }).click()
    const dialog = page.getByRole("dialog", { name: `Restore revision 1 of ${mid}/1.0.0?` })
    await dialog.waitFor()
    await dialog.getByText("Its content is saved again as revision 3, on top of revision 2").waitFor()
    const change = dialog.getByRole("table", { name: "Content, now (revision 2) to revision 1" })
    await change.waitFor()
    expect(await change.locator("tr.diff-added td.diff-text").allTextContents()).toEqual([
      expect.stringContaining('"y": 2'),
    ])
    expect(await change.locator("tr.diff-removed td.diff-text").allTextContents()).toEqual([
      expect.stringContaining('"y": 3'),
    ])
    // Cancel changes nothing.
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await dialog.waitFor({ state: "detached" })
    expect(await api.call("GET", `/api/_ui/v1/platforms/${mid}/versions/1.0.0`)).toMatchObject({ revision: 2 })

    // The list of revisions comes back late, as on a slow network: the restore is said (and its dialog closed) only
    // once the list shows it. Said before, the list showed the old revisions, then no current one, then moved every
    // row down under the pointer.
    const revisionList = /\/revisions\?limit=/
    await page.route(revisionList, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 400))
      await route.continue()
    })
    await page.getByRole("button", { name: "Restore revision 1" }).click()
    await dialog.getByRole("button", { name: "Restore revision 1" }).click()
    await page.getByText(`Restored revision 1 of ${mid}/1.0.0 as revision 3; re-processed 1 dependent`).waitFor()
    expect(await revisions.locator("tbody th").allTextContents()).toEqual([
      "3 (current) restored from revision 1",
      "2",
      "1",
    ])
    await page.unroute(revisionList)
    expect(await revisions.locator("tbody th").allTextContents()).toEqual([
      "3 (current) restored from revision 1",
      "2",
      "1",
    ])
    // Restored for everyone who reads it, and its dependents re-resolved.
    expect(await api.call("GET", `/api/${mid}/1.0.0`)).toMatchObject({ output: { nested: { x: 1, y: 2 } } })
    expect(await api.call("GET", `/api/${leaf}/1.0.0`)).toMatchObject({ output: { nested: { y: 2 }, c: 3 } })

    // Someone saves through the API while the question is open: the restore is refused and said so.
    await page.getByRole("button", { name: "Restore revision 2" }).click()
    await dialog.waitFor({ state: "detached" })
    const second = page.getByRole("dialog", { name: `Restore revision 2 of ${mid}/1.0.0?` })
    await second.getByText("Its content is saved again as revision 4, on top of revision 3").waitFor()
    await saveSchema(api, `${mid}/1.0.0`, { "@extends": `${root}/1.0.0`, theirs: true })
    await second.getByRole("button", { name: "Restore revision 2" }).click()
    await second
      .getByText(
        `Someone saved ${mid}/1.0.0 since this page was loaded: it is at revision 4 now, and nothing was restored.`,
        {
          exact: false,
        },
      )
      .waitFor()
    expect(await api.call("GET", `/api/${mid}/1.0.0`)).toMatchObject({ content: { theirs: true } })
    // The page caught up: their save is the current revision, and the question now says so.
    await revisions.locator("tbody th", { hasText: "4 (current)" }).waitFor()
    await second.getByText("Its content is saved again as revision 5, on top of revision 4").waitFor()
  })

  it("shows line numbers of two digits whole in a diff, at 375 and 1440 px", async () => {
    const { api, email, root } = await family()
    const content = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`key${index}`, index]))
    await saveSchema(api, `${root}/1.0.0`, { ...content, key11: "changed" })
    const page = await signedIn(browser, served.base, email, `/platforms/${root}/versions/1.0.0/history`)
    const diff = page.getByRole("table", { name: "Content, revision 1 to revision 2" })
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 })
      await diff.locator("td.diff-number", { hasText: "13" }).first().waitFor()
      // Each column is as narrow as its numbers allow: "10" was drawn as a 1 over a 0.
      expect(await brokenCells(diff.locator("td.diff-number"))).toEqual([])
    }
  })
})
