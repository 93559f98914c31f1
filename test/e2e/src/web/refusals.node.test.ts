/**
 * Every refusal appears where the person acted (issue 12 §11), in Chromium against the built Node host: 400 bad
 * input, 413 a value over the limit, 403 after the person's role was lowered behind their back, 404 for a
 * project deleted while open, 409 (in `secrets.test.ts` and `signIn.test.ts`), 429 with its wait, and 401 (in
 * `signIn.test.ts`). Node only: the Bun host runs the same pages in the other browser files.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, start } from "../host.js"
import { expectTiedToField } from "./a11y.js"
import { addMember, apiAs, seedProject, signInPage } from "./api.js"
import { useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("secrets")

const signedIn = async (email: string, path: string) => {
  const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
  await signInPage(page, email)
  await page.waitForURL(`${served.base}${path}`)
  return page
}

describe("refusals where the person acted", () => {
  it("explains a bad key as it is typed and a value over the limit (413) in the dialog, keeping what was typed", async () => {
    const email = `refused-${Date.now()}@example.com`
    const owner = await apiAs(served.base, email)
    const slug = await seedProject(owner, `Refusals ${Date.now()}`)
    const page = await signedIn(email, `/projects/${slug}`)
    await page.getByRole("button", { name: "Add secret" }).click()
    const dialog = page.getByRole("dialog", { name: "Add a secret" })
    const sent: Array<string> = []
    page.on("request", (request) => {
      if (request.method() === "POST" && request.url().includes("/secrets")) sent.push(request.url())
    })
    await dialog.getByLabel("Key").fill("not a key")
    await dialog.getByLabel("Value").fill("v")
    // Said under the field in the service's own words, before anything is sent; the save waits for a key it takes.
    await dialog
      .getByText('Secret key may contain only letters A-Z and a-z, digits, "_", "-" and "."; found " "')
      .waitFor()
    expect(await dialog.getByLabel("Key").getAttribute("aria-invalid")).toBe("true")
    await dialog.getByRole("button", { name: "Save secret" }).click({ force: true })
    expect(sent).toEqual([])
    expect(await dialog.getByLabel("Key").inputValue()).toBe("not a key")

    await dialog.getByLabel("Key").fill("BIG")
    await dialog.getByLabel("Value").fill("x".repeat(70 * 1024))
    await dialog.getByRole("button", { name: "Save secret" }).click()
    await dialog.getByText(/^Too large: /).waitFor()
  })

  it("ties a key the service refuses (400) to the Key field, until the key changes", async () => {
    const email = `refused-key-${Date.now()}@example.com`
    const owner = await apiAs(served.base, email)
    const slug = await seedProject(owner, `Refused key ${Date.now()}`)
    const page = await signedIn(email, `/projects/${slug}`)
    // A service with a naming rule the page does not know (a newer one) refuses a key the page lets through.
    const refusal = "Secret key must not start with NEW_"
    await page.route(`**/api/projects/${slug}/environments/development/secrets`, async (route) => {
      if (route.request().method() !== "POST") return route.continue()
      await route.fulfill({ status: 400, contentType: "application/json", body: JSON.stringify({ error: refusal }) })
    })
    await page.getByRole("button", { name: "Add secret" }).click()
    const dialog = page.getByRole("dialog", { name: "Add a secret" })
    const key = dialog.getByLabel("Key")
    await key.fill("NEW_KEY")
    await dialog.getByLabel("Value").fill("v")
    await dialog.getByRole("button", { name: "Save secret" }).click()
    const alert = dialog.getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toBe(refusal)
    await expectTiedToField(key, alert)
    const alertId = (await alert.getAttribute("id"))!
    await key.fill("OLD_KEY")
    expect(await key.getAttribute("aria-invalid")).toBe("false")
    expect(await key.getAttribute("aria-describedby")).not.toContain(alertId)
    expect(await alert.count()).toBe(0)
  })

  it("explains 403 when the person's role was lowered while the page was open", async () => {
    const ownerEmail = `owner403-${Date.now()}@example.com`
    const memberEmail = `member403-${Date.now()}@example.com`
    const owner = await apiAs(served.base, ownerEmail)
    const member = await apiAs(served.base, memberEmail)
    const slug = await seedProject(owner, `Lowered ${Date.now()}`)
    await addMember(owner, member, slug, "write")
    const page = await signedIn(memberEmail, `/projects/${slug}`)
    await page.getByRole("button", { name: "Add secret" }).click()
    const { user } = await member.call<{ user: { id: string } }>("GET", "/api/auth/me")
    await owner.call("PATCH", `/api/projects/${slug}/members/${user.id}`, { role: "read" })
    const dialog = page.getByRole("dialog", { name: "Add a secret" })
    await dialog.getByLabel("Key").fill("LATE")
    await dialog.getByRole("button", { name: "Save secret" }).click()
    await dialog.getByText(/^Not allowed: /).waitFor()
    // The page then reads the person's rights again: the dialog keeps its refusal and what was typed, and the
    // page behind it shows the role now, without the controls it no longer allows.
    await page.locator(".project-head .badge").filter({ hasText: "Can read" }).waitFor()
    expect(await dialog.getByLabel("Key").inputValue()).toBe("LATE")
    expect(await dialog.getByText(/^Not allowed: /).count()).toBe(1)
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await page.getByText("You can read this project; only owners and write members change secrets.").waitFor()
    expect(await page.getByRole("button", { name: "Add secret" }).count()).toBe(0)
  })

  it("shows a lowered role in the secret's dialog too, with its refusal, after an edit is refused", async () => {
    const ownerEmail = `owner403e-${Date.now()}@example.com`
    const memberEmail = `member403e-${Date.now()}@example.com`
    const owner = await apiAs(served.base, ownerEmail)
    const member = await apiAs(served.base, memberEmail)
    const slug = await seedProject(owner, `Lowered edit ${Date.now()}`, { development: { KEPT: "v" } })
    await addMember(owner, member, slug, "write")
    const page = await signedIn(memberEmail, `/projects/${slug}`)
    await page.getByRole("button", { name: "KEPT", exact: true }).click()
    const dialog = page.getByRole("dialog", { name: "KEPT" })
    await dialog.getByRole("button", { name: "Edit KEPT in development" }).click()
    await dialog.getByLabel("New value of KEPT in development").fill("mine")
    const { user } = await member.call<{ user: { id: string } }>("GET", "/api/auth/me")
    await owner.call("PATCH", `/api/projects/${slug}/members/${user.id}`, { role: "read" })
    await dialog.getByRole("button", { name: "Save" }).click()
    await page.locator(".project-head .badge").filter({ hasText: "Can read" }).waitFor()
    await browser.screenshot(page, "secrets-edit-refused-lowered-1440")
    await dialog.getByText(/^Not allowed: /).waitFor()
  })

  it("explains 404 when the project was deleted while open, and a project out of reach", async () => {
    const email = `gone-${Date.now()}@example.com`
    const owner = await apiAs(served.base, email)
    const slug = await seedProject(owner, `Gone ${Date.now()}`, { development: { KEY: "v" } })
    const page = await signedIn(email, `/projects/${slug}`)
    await page.getByRole("button", { name: "KEY", exact: true }).click()
    await owner.call("DELETE", `/api/projects/${slug}`)
    await page.getByRole("button", { name: "Reveal KEY in development" }).click()
    await page.getByRole("dialog").getByText("Project not found").waitFor()

    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("heading", { name: "Project not found" }).waitFor()
  })
})

describe("429", () => {
  let limited: Host
  beforeAll(async () => {
    limited = await start({ args: ["serve", "--only", "secrets"], env: { COFFER_RATE_LIMIT: "2" } })
  })
  afterAll(() => limited?.stop())

  it("says how long to wait", async () => {
    for (const email of ["a@example.com", "b@example.com"]) await apiAs(limited.secrets!, email)
    const page = await browser.open(`${limited.secrets}/sign-in`)
    await signInPage(page, "c@example.com")
    const alert = page.getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/^Too many attempts\. Wait \d+ seconds, then try again\.$/)
  })
})
