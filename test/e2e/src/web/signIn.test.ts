/**
 * The Secrets app in Chromium on the built host: signing in (development login, `returnTo`, each `?error=`
 * reason as a sentence), an expired session sending the person to sign in and back, and the projects page.
 */
import { describe, expect, it } from "vitest"
import { chromiumAccessible } from "./a11y.js"
import { apiAs, seedProject, signInPage as signIn } from "./api.js"
import { holdBack, POLL, useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("secrets")

describe("sign-in page", () => {
  it("sends a signed-out visitor to sign in, then back to the page they asked for", async () => {
    const page = await browser.open(`${served.base}/projects?from=link`)
    await page.waitForURL(/\/sign-in\?returnTo=/)
    expect(new URL(page.url()).searchParams.get("returnTo")).toBe("/projects?from=link")
    // The address changes before the sign-in page is drawn: wait for the page rather than read it at once.
    await page.getByRole("heading", { name: "Sign in" }).waitFor()
    await signIn(page, "ada@example.com")
    await page.waitForURL(`${served.base}/projects?from=link`)
    await page.getByRole("heading", { name: "Projects" }).waitFor()
    // The header's account is the session's, not the page's: wait for it too.
    await page.getByText("ada@example.com").waitFor()
  })

  it.each([
    ["expired", "took too long"],
    ["rejected", "could not be accepted"],
    ["refused", "refused the sign-in"],
    ["email", "did not share a verified e-mail address"],
    ["linking", "coffer accounts link"],
    ["off", "not configured on this server"],
    ["unavailable", "unavailable right now"],
    ["something-else", "did not succeed"],
  ])("says what ?error=%s means", async (reason, sentence) => {
    const page = await browser.open(`${served.base}/sign-in?error=${reason}`)
    const alert = page.getByRole("alert")
    await alert.first().waitFor()
    expect(await alert.first().textContent()).toContain(sentence)
  })

  it.each([375, 1440])("keeps the alert apart from the development login at %i px", async (width) => {
    const page = await browser.open(`${served.base}/sign-in?error=ended`, { width, height: 800 })
    const alert = page.getByRole("alert").filter({ hasText: "Your session ended." })
    const login = page.getByRole("form", { name: "Development login" })
    await login.waitFor()
    const above = await alert.boundingBox()
    const below = await login.boundingBox()
    // The stack's gap (0.75rem) between them, not touching borders.
    expect(below!.y - (above!.y + above!.height)).toBeGreaterThanOrEqual(8)
    await browser.screenshot(page, `sign-in-ended-${width}`)
  })

  it("ignores a returnTo that leaves the site", async () => {
    const page = await browser.open(`${served.base}/sign-in?returnTo=//evil.example/x`)
    await signIn(page, "bob@example.com")
    await page.waitForURL(`${served.base}/projects`)
  })

  it("shows no identity-provider button when none is configured", async () => {
    const page = await browser.open(`${served.base}/sign-in`)
    await page.getByLabel("E-mail").waitFor()
    expect(await page.getByRole("link", { name: "OpenID Connect" }).count()).toBe(0)
  })

  it("returns to sign-in and back when the session ends while the person works", async () => {
    const page = await browser.open(`${served.base}/sign-in`)
    await signIn(page, "carol@example.com")
    // The list has loaded: no request of the page is still on its way when the session goes.
    await page.getByText("You are in no project yet").waitFor()
    await browser.context().clearCookies()
    await page.getByLabel("Project name").fill("Expired Session")
    await page.getByRole("button", { name: "Create project" }).click()
    await page.waitForURL(/\/sign-in\?returnTo=%2Fprojects/)
    // Sent away in the middle of an action, the person is told why.
    await page.getByRole("alert").filter({ hasText: "Your session ended." }).waitFor()
    await signIn(page, "carol@example.com")
    await page.waitForURL(`${served.base}/projects`)
  })

  it("says Sign out is under way while it runs, and signs out once when it is pressed again meanwhile", async () => {
    const page = await browser.open(`${served.base}/sign-in`)
    await signIn(page, "dave@example.com")
    await page.getByText("dave@example.com").waitFor()
    let sent = 0
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/api/auth/logout") sent++
    })
    const release = await holdBack(page, "**/api/auth/logout")
    const signOut = page.getByRole("button", { name: "Sign out" })
    await signOut.focus()
    await page.keyboard.press("Enter")
    await expect.poll(() => signOut.getAttribute("aria-busy"), POLL).toBe("true")
    // Pressed again while the first is on its way: nothing more is sent, and the focus stays on it.
    await page.keyboard.press("Enter")
    // A click too (forced: playwright waits for an `aria-disabled` button to be enabled).
    await signOut.click({ force: true })
    expect(await signOut.evaluate((element) => element === document.activeElement)).toBe(true)
    release()
    await page.waitForURL(`${served.base}/sign-in`)
    expect(sent).toBe(1)
  })
})

describe("projects page", () => {
  it("draws the new project form once the projects are listed, so it does not move under a name being typed", async () => {
    const email = `slow-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    for (const name of ["One", "Two", "Three"]) await seedProject(api, `${name} ${Date.now()}`)
    const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent("/api-keys")}`)
    await signIn(page, email)
    await page.waitForURL(`${served.base}/api-keys`)
    // The projects come back slowly, as on a busy network.
    await page.route("**/api/projects", async (route) => {
      if (route.request().method() === "GET") await new Promise((resolve) => setTimeout(resolve, 500))
      await route.continue()
    })
    await page.getByRole("navigation").getByRole("link", { name: "Projects" }).click()
    const field = page.getByLabel("Project name")
    await field.waitFor()
    const first = await field.boundingBox()
    await page.getByRole("table", { name: "Your projects" }).locator("tbody tr").nth(2).waitFor()
    expect(await field.boundingBox()).toEqual(first)
  })

  it("keeps the new project form, and the name typed in it, through Try again after the projects were refused", async () => {
    const email = `retry-${Date.now()}@example.com`
    await apiAs(served.base, email)
    const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent("/api-keys")}`)
    await signIn(page, email)
    await page.waitForURL(`${served.base}/api-keys`)
    // The list is refused once, then comes back slowly, as on a busy network.
    let refuse = true
    await page.route("**/api/projects", async (route) => {
      if (route.request().method() !== "GET") return route.continue()
      if (refuse) return route.fulfill({ status: 503, json: { error: "Service unavailable" } })
      await new Promise((resolve) => setTimeout(resolve, 500))
      return route.continue()
    })
    await page.getByRole("navigation").getByRole("link", { name: "Projects" }).click()
    await page.getByRole("button", { name: "Try again" }).waitFor()
    await page.getByLabel("Project name").fill("Typed before trying again")
    refuse = false
    await page.getByRole("button", { name: "Try again" }).click()
    await page.getByText("You are in no project yet", { exact: false }).waitFor()
    expect(await page.getByLabel("Project name").inputValue()).toBe("Typed before trying again")
  })

  it("creates a project with its slug shown first, explains a taken slug, and deletes with a typed confirmation", async () => {
    const page = await browser.open(`${served.base}/sign-in`)
    await signIn(page, "dan@example.com")
    await page.getByRole("heading", { name: "Projects" }).waitFor()
    await page.getByLabel("Project name").fill("Café Élan")
    expect(await page.getByTestId("slug-preview").textContent()).toBe("/projects/cafe-elan")
    await page.getByRole("button", { name: "Create project" }).click()
    await page.waitForURL(`${served.base}/projects/cafe-elan`)

    await page.goto(`${served.base}/projects`)
    const row = page.getByRole("row", { name: /Café Élan/ })
    await row.waitFor()
    expect(await row.textContent()).toContain("Owner")
    await page.getByLabel("Project name").fill("cafe elan")
    await page.getByRole("button", { name: "Create project" }).click()
    const refusal = page.getByRole("alert")
    await refusal.waitFor()
    expect(await refusal.textContent()).toContain("“cafe-elan” already exists")
    // The field is marked, and reads the refusal after its hint, as a field checked as it is typed does; a new
    // name lifts both.
    const field = page.getByLabel("Project name")
    expect(await field.getAttribute("aria-invalid")).toBe("true")
    const read = await chromiumAccessible(field)
    expect(read.description).toContain("/projects/cafe-elan")
    expect(read.description).toContain("“cafe-elan” already exists")
    await field.fill("cafe elan 2")
    await refusal.waitFor({ state: "detached" })
    expect(await field.getAttribute("aria-invalid")).toBe("false")
    expect((await chromiumAccessible(field)).description).toBe("Address: /projects/cafe-elan-2")

    await page.getByRole("button", { name: "Delete project Café Élan" }).click()
    const dialog = page.getByRole("dialog", { name: "Delete Café Élan?" })
    const confirm = dialog.getByRole("button", { name: "Delete project" })
    expect(await confirm.isDisabled()).toBe(true)
    await dialog.getByLabel("Type cafe-elan to confirm").fill("cafe-elan")
    // The list comes back slowly, as on a busy network: the deletion is said once the project has left the list,
    // not while it is still listed beside the toast, its row then leaving under the pointer.
    await page.route("**/api/projects", async (route) => {
      if (route.request().method() === "GET") await new Promise((resolve) => setTimeout(resolve, 300))
      await route.continue()
    })
    await confirm.click()
    await page.getByText("Deleted Café Élan").waitFor()
    expect(await page.getByRole("link", { name: "Café Élan" }).count()).toBe(0)
    await page.getByText("You are in no project yet").waitFor()
  })
})
