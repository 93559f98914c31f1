/**
 * API keys (issue 12 §9) in Chromium against the built host (`e2e-node` and `e2e-bun`): create with a scope and
 * an expiry (the key shown once, with copy, and working at once), filter by project, rotate (the old value stops
 * working), delete; a read member may create only read keys (a write scope chosen for another project falls back
 * to read), and a project's owner sees and deletes a member's key but cannot rotate it; an expired key is rotated
 * only into a new lifetime. Each test fails on a console error, a page error or a CSP violation (`browser.ts`).
 */
import type { Page, Route } from "playwright-core"
import { describe, expect, it } from "vitest"
import { addMember, apiAs, seedProject, signInPage } from "./api.js"
import { POLL, useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("secrets")

let count = 0
const unique = (what: string) => `${what}${++count}-${Date.now()}`

const signedIn = async (email: string, path: string) => {
  const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
  await signInPage(page, email)
  await page.waitForURL(`${served.base}${path}`)
  return page
}

/** What the API answers a request made with `key` for the project's development secrets. */
const statusWith = async (key: string, slug: string) =>
  (
    await fetch(`${served.base}/api/projects/${slug}/environments/development/secrets`, {
      headers: { Authorization: `Bearer ${key}` },
    })
  ).status

const createOnPage = async (
  page: Page,
  input: { name: string; project: string; scope: "read" | "write"; days?: string },
) => {
  const form = page.getByRole("form", { name: "Create an API key" })
  await form.getByLabel("Key name").fill(input.name)
  await form.getByLabel("Project").selectOption({ label: input.project })
  await form.getByLabel("Scope").selectOption(input.scope)
  await form.getByLabel("Expires in days").fill(input.days ?? "")
  await form.getByRole("button", { name: "Create API key" }).click()
  const value = page.getByLabel(`API key ${input.name} value`)
  await value.waitFor()
  return (await value.textContent())!
}

/** Closes the dialog of the key `name` shown once (Done). */
const keyDone = async (page: Page, name: string) => {
  await page
    .getByRole("dialog", { name: `API key ${name} created` })
    .getByRole("button", { name: "Done" })
    .click()
  await page.getByLabel(`API key ${name} value`).waitFor({ state: "detached" })
}

const rows = (page: Page) => page.getByRole("table", { name: "API keys" }).locator("tbody tr")

describe("API keys", () => {
  it("creates with scope and expiry (shown once), filters by project, rotates and deletes", async () => {
    const email = `${unique("keys")}@example.com`
    const api = await apiAs(served.base, email)
    const first = unique("Alpha")
    const second = unique("Beta")
    const alpha = await seedProject(api, first)
    const beta = await seedProject(api, second)
    const page = await signedIn(email, "/api-keys")

    const deploy = await createOnPage(page, { name: "deploy", project: first, scope: "write", days: "30" })
    expect(deploy).toMatch(/^cfk_[A-Za-z0-9_-]{43}$/)
    // Where it goes next, with this service's address.
    const shown = page.getByRole("region", { name: "API key deploy" })
    expect(await shown.textContent()).toContain(`coffer login --url ${served.base}, then paste it.`)
    expect(await shown.textContent()).toContain(`COFFER_URL=${served.base}`)
    await browser.screenshot(page, "secrets-api-key-shown-1440")
    await page.getByRole("button", { name: "Copy the api key deploy" }).click()
    await page.getByText("Copied to the clipboard").waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(deploy)
    expect(await statusWith(deploy, alpha)).toBe(200)
    const deployRow = page.getByRole("row", { name: /^deploy / })
    await deployRow.waitFor()
    const cells = await deployRow.locator("td").allTextContents()
    expect(cells[0]).toBe(first)
    expect(cells[1]).toBe("write")
    expect(cells[3]).toBe(`${deploy.slice(0, 12)}…`)
    expect(cells[5]).not.toBe("never")
    await keyDone(page, "deploy")
    // The form starts over for the next key, on the same project: no scope or lifetime carried over unnoticed.
    const form = page.getByRole("form", { name: "Create an API key" })
    expect(
      await Promise.all(["Key name", "Scope", "Expires in days"].map((label) => form.getByLabel(label).inputValue())),
    ).toEqual(["", "read", ""])

    const ci = await createOnPage(page, { name: "ci", project: second, scope: "read" })
    expect(await statusWith(ci, beta)).toBe(200)
    // The list is fetched again after the creation: wait for the new row before reading it.
    const ciRow = page.getByRole("row", { name: /^ci / })
    await ciRow.waitFor()
    expect((await ciRow.locator("td").allTextContents())[5]).toBe("never")
    expect(await rows(page).count()).toBe(2)
    await keyDone(page, "ci")

    // Filter by project, kept in the address.
    await page.locator(".toolbar").getByLabel("Project").selectOption({ label: first })
    await page.waitForURL(`${served.base}/api-keys?project=${alpha}`)
    await page.getByRole("row", { name: /^ci / }).waitFor({ state: "detached" })
    expect(await rows(page).count()).toBe(1)

    // Rotate: a new value, shown once; the old one stops at once.
    await page.getByRole("button", { name: "Rotate deploy" }).click()
    await page.getByRole("dialog", { name: "Rotate deploy?" }).getByRole("button", { name: "Rotate key" }).click()
    await page.getByText("Rotated deploy: the old value no longer works").waitFor()
    const rotated = (await page.getByLabel("API key deploy value").textContent())!
    expect(rotated).not.toBe(deploy)
    expect(await statusWith(deploy, alpha)).toBe(401)
    expect(await statusWith(rotated, alpha)).toBe(200)
    await keyDone(page, "deploy")

    // Delete from the unfiltered list.
    await page.locator(".toolbar").getByLabel("Project").selectOption({ label: "All projects" })
    await page.waitForURL(`${served.base}/api-keys`)
    await page.getByRole("button", { name: "Delete ci" }).click()
    await page.getByRole("dialog", { name: "Delete ci?" }).getByRole("button", { name: "Delete key" }).click()
    await page.getByText("Deleted ci").waitFor()
    await page.getByRole("row", { name: /^ci / }).waitFor({ state: "detached" })
    expect(await statusWith(ci, beta)).toBe(401)
  })

  it("draws the form once the keys are listed, so it does not move under a name being typed", async () => {
    const email = `${unique("keysSlow")}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, unique("Slow"))
    for (const name of ["one", "two", "three"]) {
      await api.call("POST", "/api/api-keys", { name, projectSlug: slug, scope: "read" })
    }
    const page = await signedIn(email, "/projects")
    // The keys come back after the projects, as they may on a busy network.
    await page.route("**/api/api-keys", async (route) => {
      if (route.request().method() === "GET") await new Promise((resolve) => setTimeout(resolve, 500))
      await route.continue()
    })
    await page.getByRole("link", { name: "API keys" }).click()
    const field = page.getByRole("form", { name: "Create an API key" }).getByLabel("Key name")
    await field.waitFor()
    const first = await field.boundingBox()
    await rows(page).nth(2).waitFor()
    expect(await field.boundingBox()).toEqual(first)
  })

  it("says a project in the address is not the person's (left, deleted) and leads to every key", async () => {
    const email = `${unique("left")}@example.com`
    const owner = await apiAs(served.base, `${unique("owner")}@example.com`)
    const member = await apiAs(served.base, email)
    const slug = await seedProject(owner, unique("Left behind "))
    await addMember(owner, member, slug, "read")
    const { user } = await member.call<{ user: { id: string } }>("GET", "/api/auth/me")
    await member.call("DELETE", `/api/projects/${slug}/members/${user.id}`)
    const page = await signedIn(email, `/api-keys?project=${slug}`)

    await page.getByText(`You are in no project “${slug}”: it was deleted, or you are no longer a member.`).waitFor()
    // No Try again, which could never succeed; the choice shows the project named, not a blank.
    expect(await page.getByRole("button", { name: "Try again" }).count()).toBe(0)
    const choice = page.locator(".toolbar").getByLabel("Project")
    expect(await choice.locator("option:checked").textContent()).toBe(slug)
    await page.getByRole("link", { name: "Show the keys of every project" }).click()
    await page.waitForURL(`${served.base}/api-keys`)
    await page.getByText("No API keys.").waitFor()
  })

  it("says a key deleted elsewhere was already deleted, and brings the list up to date", async () => {
    const email = `${unique("stale")}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, unique("Stale"))
    const { id } = await api.call<{ id: string }>("POST", "/api/api-keys", {
      name: "stale",
      projectSlug: slug,
      scope: "read",
    })
    const page = await signedIn(email, "/api-keys")
    await page.getByRole("row", { name: /^stale / }).waitFor()
    await api.call("DELETE", `/api/api-keys/${id}`)

    // Deleting what is gone already is the outcome asked for: no refusal, a word that says so, a fresh list.
    await page.getByRole("button", { name: "Delete stale" }).click()
    const dialog = page.getByRole("dialog", { name: "Delete stale?" })
    await dialog.getByRole("button", { name: "Delete key" }).click()
    await page.getByText("stale was already deleted").waitFor()
    await dialog.waitFor({ state: "detached" })
    await page.getByRole("row", { name: /^stale / }).waitFor({ state: "detached" })
  })

  it("says once that the keys and the projects could not be loaded, and loads both again", async () => {
    const email = `${unique("down")}@example.com`
    const api = await apiAs(served.base, email)
    const name = unique("Down")
    const slug = await seedProject(api, name)
    await api.call("POST", "/api/api-keys", { name: "kept", projectSlug: slug, scope: "read" })
    const page = await signedIn(email, "/projects")
    // Both lists the page loads fail alike, as when the service is down behind a proxy.
    let down = true
    const refuse = async (route: Route) => {
      if (!down) return route.continue()
      return route.fulfill({
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: "Database unavailable" }),
      })
    }
    await page.route("**/api/projects", async (route) => {
      // Once back, the projects answer after the keys: their old refusal is not said beside the list meanwhile.
      if (!down) await new Promise((resolve) => setTimeout(resolve, 1_000))
      return refuse(route)
    })
    await page.route("**/api/api-keys*", refuse)
    await page.goto(`${served.base}/api-keys`)
    await page.getByRole("button", { name: "Try again" }).waitFor()
    expect(await page.getByText(/The service is unavailable right now/).count()).toBe(1)
    down = false
    await page.getByRole("button", { name: "Try again" }).click()
    await page.getByRole("row", { name: /^kept / }).waitFor()
    expect(await page.getByText(/The service is unavailable right now/).count()).toBe(0)
    await page.getByRole("option", { name }).first().waitFor({ state: "attached" })
    expect(await page.getByText(/The service is unavailable right now/).count()).toBe(0)
  })

  it("shows a new key in a dialog of its own, which a stray Escape does not close before it is copied", async () => {
    const email = `${unique("shown")}@example.com`
    const api = await apiAs(served.base, email)
    const project = unique("Shown")
    const slug = await seedProject(api, project)
    await api.call("POST", "/api/api-keys", { name: "old", projectSlug: slug, scope: "read" })
    const page = await signedIn(email, "/api-keys")
    await page.getByRole("row", { name: /^old / }).waitFor()

    // Made: its value cannot be shown again, so nothing on the page behind it (another key made, the old one
    // deleted, another tab) can take it away before it is copied, and Escape asks first.
    const fresh = await createOnPage(page, { name: "fresh", project, scope: "read" })
    const shown = page.getByRole("dialog", { name: "API key fresh created" })
    expect(await shown.evaluate((dialog) => (dialog as HTMLDialogElement).matches(":modal"))).toBe(true)
    await page.keyboard.press("Escape")
    await shown
      .getByRole("alert")
      .filter({ hasText: "Not copied yet: once this closes, it cannot be shown again." })
      .waitFor()
    await browser.screenshot(page, "secrets-api-key-not-copied-1440")
    await shown.getByRole("button", { name: "Go back" }).click()
    expect(await page.getByLabel("API key fresh value").textContent()).toBe(fresh)
    await shown.getByRole("button", { name: "Copy the api key fresh" }).click()
    // The clipboard answers in its own time; until it has, the value is not copied and Escape still asks.
    await page.getByText("Copied to the clipboard").waitFor()
    await page.keyboard.press("Escape")
    await shown.waitFor({ state: "detached" })
    await page.getByRole("button", { name: "Delete old" }).click()
    await page.getByRole("dialog", { name: "Delete old?" }).getByRole("button", { name: "Delete key" }).click()
    await page.getByRole("row", { name: /^old / }).waitFor({ state: "detached" })
    expect(await statusWith(fresh, slug)).toBe(200)
  })

  it("lets a read member create only read keys; the owner sees, cannot rotate, and deletes them", async () => {
    const ownerEmail = `${unique("owner")}@example.com`
    const memberEmail = `${unique("reader")}@example.com`
    const owner = await apiAs(served.base, ownerEmail)
    const member = await apiAs(served.base, memberEmail)
    const name = unique("Shared")
    const slug = await seedProject(owner, name)
    await addMember(owner, member, slug, "read")

    const page = await signedIn(memberEmail, "/api-keys")
    const form = page.getByRole("form", { name: "Create an API key" })
    await form.getByLabel("Project").selectOption({ label: name })
    expect(await form.locator("option[value=write]").isDisabled()).toBe(true)
    const key = await createOnPage(page, { name: "reader-key", project: name, scope: "read" })
    expect(await statusWith(key, slug)).toBe(200)
    await page.getByRole("button", { name: "Rotate reader-key" }).waitFor()

    const ownerPage = await browser.openOther(`${served.base}/sign-in?returnTo=/api-keys`)
    await signInPage(ownerPage, ownerEmail)
    await ownerPage.getByRole("row", { name: /^reader-key / }).waitFor()
    expect(await ownerPage.getByRole("row", { name: /^reader-key / }).textContent()).toContain(memberEmail)
    expect(await ownerPage.getByRole("button", { name: "Rotate reader-key" }).count()).toBe(0)
    await ownerPage.getByRole("button", { name: "Delete reader-key" }).click()
    await ownerPage.getByRole("dialog").getByRole("button", { name: "Delete key" }).click()
    await ownerPage.getByText("No API keys.").waitFor()
    expect(await statusWith(key, slug)).toBe(401)
  })

  it("falls back to a read scope on a project the person can only read", async () => {
    const owner = await apiAs(served.base, `${unique("owner")}@example.com`)
    const email = `${unique("mixed")}@example.com`
    const member = await apiAs(served.base, email)
    const shared = unique("Shared")
    const slug = await seedProject(owner, shared)
    await addMember(owner, member, slug, "read")
    const own = unique("Own")
    await seedProject(member, own)
    const page = await signedIn(email, "/api-keys")
    const form = page.getByRole("form", { name: "Create an API key" })
    await form.getByLabel("Key name").fill("switched")
    await form.getByLabel("Project").selectOption({ label: own })
    await form.getByLabel("Scope").selectOption("write")
    await form.getByLabel("Project").selectOption({ label: shared })
    await expect.poll(() => form.getByLabel("Scope").inputValue(), POLL).toBe("read")
    await form.getByRole("button", { name: "Create API key" }).click()
    expect(await statusWith((await page.getByLabel("API key switched value").textContent())!, slug)).toBe(200)
    const row = page.getByRole("row", { name: /^switched / })
    await row.waitFor()
    expect((await row.locator("td").allTextContents())[1]).toBe("read")
  })

  it("asks a new lifetime of an expired key before rotating it", async () => {
    const email = `${unique("expiry")}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, unique("Expiry"))
    const { key } = await api.call<{ key: string }>("POST", "/api/api-keys", {
      name: "short",
      projectSlug: slug,
      expiresInDays: 1,
    })
    const page = await signedIn(email, "/api-keys")
    // In its last week, it is marked so: there is still time to rotate it.
    await page
      .getByRole("row", { name: /^short / })
      .getByText("expires soon")
      .waitFor()
    // Two days on in the page only: the key is expired as the page sees it, and still works for the service.
    await page.clock.setFixedTime(Date.now() + 2 * 86_400_000)
    await page.reload()
    await page
      .getByRole("row", { name: /^short / })
      .getByText("expired", { exact: true })
      .waitFor()
    expect(await page.getByText("expires soon").count()).toBe(0)
    await page.getByRole("button", { name: "Rotate short" }).click()
    const dialog = page.getByRole("dialog", { name: "Rotate short?" })
    const days = dialog.getByLabel("Expires in days")
    await dialog.getByText(/give it a new lifetime/).waitFor()
    await dialog.getByRole("button", { name: "Rotate key" }).click()
    // Refused by the form itself: nothing was sent, so the key is the same.
    await expect
      .poll(() => days.evaluate((input) => (input as HTMLInputElement).validity.valueMissing), POLL)
      .toBe(true)
    expect(await statusWith(key, slug)).toBe(200)
    await days.fill("7")
    await dialog.getByRole("button", { name: "Rotate key" }).click()
    const rotated = (await page.getByLabel("API key short value").textContent())!
    expect(await statusWith(key, slug)).toBe(401)
    expect(await statusWith(rotated, slug)).toBe(200)
  })
})

describe("keys of the same name", () => {
  it("names each row's actions apart, by the start of the key's value", async () => {
    const ownerEmail = `${unique("same-owner")}@example.com`
    const owner = await apiAs(served.base, ownerEmail)
    const member = await apiAs(served.base, `${unique("same-member")}@example.com`)
    const slug = await seedProject(owner, unique("Same names "))
    await addMember(owner, member, slug, "write")
    // Two people's "laptop" keys, both listed for the owner.
    await owner.call("POST", "/api/api-keys", { name: "laptop", projectSlug: slug, scope: "read" })
    await member.call("POST", "/api/api-keys", { name: "laptop", projectSlug: slug, scope: "read" })
    const page = await signedIn(ownerEmail, `/api-keys?project=${slug}`)
    const deletes = page.getByRole("button", { name: /^Delete laptop/ })
    await expect.poll(() => deletes.count(), POLL).toBe(2)
    const names = await deletes.evaluateAll((buttons) => buttons.map((button) => button.getAttribute("aria-label")))
    expect(new Set(names).size, `${names}`).toBe(2)
    const activity = await page
      .getByRole("link", { name: /^Activity of laptop/ })
      .evaluateAll((links) => links.map((link) => link.getAttribute("aria-label")))
    expect(new Set(activity).size, `${activity}`).toBe(2)
  })
})
