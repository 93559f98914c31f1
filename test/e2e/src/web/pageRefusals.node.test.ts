/**
 * Refusals on the People, API keys, invite and audit-log pages (issue 12 §11), in Chromium against the built
 * Node host, each shown where the person acted: 400 (a blank key name), 403 (a write key after the person's role
 * was lowered behind their back), 404 and 409 on a rotation (the key deleted elsewhere; rotated by another request
 * at the same moment, interleaved with a row lock on the host's own Postgres), each bringing the key list up to
 * date, 401 (the session ended: sign in and come back to the same page of the audit log), 429 with its wait
 * (accepting invites too often) and 503 (the database cut off behind a proxy while People and API keys are open;
 * the project, project list and API key pages then offer Try again). The People page's 409 is in
 * `people.test.ts`. Node only: the Bun host runs the same pages in the other browser files.
 */
import { hasPostgres } from "@coffer/contract"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, start } from "../host.js"
import { addMember, apiAs, seedProject, signInPage } from "./api.js"
import { POLL, useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()

let count = 0
const unique = (what: string) => `${what}${++count}-${Date.now()}`

const signedIn = async (base: string, email: string, path: string) => {
  const page = await browser.open(`${base}/sign-in?returnTo=${encodeURIComponent(path)}`)
  await signInPage(page, email)
  await page.waitForURL(`${base}${path}`)
  return page
}

describe("on the built host", () => {
  let host: Host
  let base: string
  beforeAll(async () => {
    host = await start({ args: ["serve", "--only", "secrets"] })
    base = host.secrets!
  })
  afterAll(() => host?.stop())

  it("explains a blank key name (400) and a write key the person may no longer hold (403) in the form", async () => {
    const ownerEmail = `${unique("owner")}@example.com`
    const memberEmail = `${unique("writer")}@example.com`
    const owner = await apiAs(base, ownerEmail)
    const member = await apiAs(base, memberEmail)
    const name = unique("Lowered")
    const slug = await seedProject(owner, name)
    await addMember(owner, member, slug, "write")
    const page = await signedIn(base, memberEmail, "/api-keys")
    const form = page.getByRole("form", { name: "Create an API key" })
    await form.getByLabel("Key name").fill("   ")
    await form.getByRole("button", { name: "Create API key" }).click()
    await form
      .getByRole("alert")
      .filter({ hasText: /API key name/ })
      .waitFor()

    await form.getByLabel("Key name").fill("deploy")
    await form.getByLabel("Scope").selectOption("write")
    const { user } = await member.call<{ user: { id: string } }>("GET", "/api/auth/me")
    await owner.call("PATCH", `/api/projects/${slug}/members/${user.id}`, { role: "read" })
    await form.getByRole("button", { name: "Create API key" }).click()
    await form
      .getByRole("alert")
      .filter({ hasText: /^Not allowed: Read members can create only read keys/ })
      .waitFor()
    expect(await form.getByLabel("Key name").inputValue()).toBe("deploy")
  })

  it("says a key deleted elsewhere cannot be rotated (404), closes the dialog and brings the list up to date", async () => {
    const email = `${unique("rotate")}@example.com`
    const api = await apiAs(base, email)
    const slug = await seedProject(api, unique("Rotate"))
    await api.call("POST", "/api/api-keys", { name: "gone", projectSlug: slug })
    const page = await signedIn(base, email, "/api-keys")
    await page.getByRole("button", { name: "Rotate gone" }).click()
    const { apiKeys } = await api.call<{ apiKeys: ReadonlyArray<{ id: string }> }>("GET", "/api/api-keys")
    await api.call("DELETE", `/api/api-keys/${apiKeys[0]!.id}`)
    const dialog = page.getByRole("dialog", { name: "Rotate gone?" })
    await dialog.getByRole("button", { name: "Rotate key" }).click()
    // Nothing is left to rotate: no bare "not found" kept in a dialog that can do nothing more.
    await page.getByText("gone was deleted elsewhere: there is nothing to rotate").waitFor()
    await dialog.waitFor({ state: "detached" })
    // The list now shows what is stored, without a reload of the page.
    await page.getByText("No API keys.").waitFor()
  })

  it("returns to sign-in and back to the same audit page when the session ends", async () => {
    const email = `${unique("expired")}@example.com`
    const api = await apiAs(base, email)
    const values: Record<string, string> = {}
    for (let index = 0; index < 55; index++) values[`K${index}`] = "v"
    const slug = await seedProject(api, unique("Expired"), { development: values })
    const path = `/projects/${slug}/audit`
    const page = await signedIn(base, email, path)
    await page.getByRole("table", { name: /page 1/ }).waitFor()
    await browser.context().clearCookies()
    await page.getByRole("button", { name: "Older" }).click()
    await page.waitForURL(/\/sign-in\?returnTo=/)
    expect(new URL(page.url()).searchParams.get("returnTo")).toBe(`${path}?page=2`)
    await signInPage(page, email)
    await page.waitForURL(`${base}${path}?page=2`)
    await page.getByRole("table", { name: /page 2/ }).waitFor()
  })
})

describe("429", () => {
  let limited: Host
  beforeAll(async () => {
    limited = await start({ args: ["serve", "--only", "secrets"], env: { COFFER_RATE_LIMIT: "3" } })
  })
  afterAll(() => limited?.stop())

  it("says how long to wait before accepting an invite again", async () => {
    const base = limited.secrets!
    const owner = await apiAs(base, "owner@example.com")
    const slug = await seedProject(owner, "Limited")
    const { token } = await owner.call<{ token: string }>("POST", `/api/projects/${slug}/invites`, {})
    const guest = await apiAs(base, "guest@example.com")
    // Guessing tokens uses up this address's attempts.
    for (let attempt = 0; attempt < 3; attempt++) {
      await guest.call("POST", "/api/invites/accept", { token: `cfi_${"A".repeat(43)}` }).catch(() => undefined)
    }
    const page = await browser.open(`${base}/sign-in`)
    await signInPage(page, "guest@example.com")
    await page.waitForURL(`${base}/projects`)
    await page.goto(`${base}/invite#${token}`)
    await page.getByRole("button", { name: "Accept invite" }).click()
    const alert = page.getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/^Too many attempts\. Wait \d+ seconds, then try again\.$/)
    // Not used up: the button stays for another try once the wait is over.
    expect(await page.getByRole("button", { name: "Accept invite" }).isEnabled()).toBe(true)
  })
})

describe.runIf(await hasPostgres())("409 on rotate", () => {
  const served = useService("secrets", "postgres behind a proxy")

  it("brings the list up to the key another request rotated at the same moment", async () => {
    const base = served.base
    const email = `${unique("raced")}@example.com`
    const api = await apiAs(base, email)
    const slug = await seedProject(api, unique("Raced"))
    const { id } = await api.call<{ id: string }>("POST", "/api/api-keys", { name: "raced", projectSlug: slug })
    const page = await signedIn(base, email, "/api-keys")
    await page.getByRole("button", { name: "Rotate raced" }).click()
    // Another request rotating the key at the same moment, as the service sees it: its row is locked before the
    // page's rotation writes, then changed and released, so the page's conditional write finds another key.
    const other = new pg.Client({ connectionString: served.database.url })
    await other.connect()
    try {
      await other.query("begin")
      await other.query("select id from secrets_api_keys where id = $1 for update", [id])
      await page.getByRole("dialog", { name: "Rotate raced?" }).getByRole("button", { name: "Rotate key" }).click()
      const waiting = async () =>
        Number(
          (
            await other.query(
              "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
            )
          ).rows[0].n,
        )
      await expect.poll(waiting, POLL).toBe(1)
      await other.query("update secrets_api_keys set key_hash = $2, key_prefix = $3 where id = $1", [
        id,
        "0".repeat(64),
        "ck_otherrq",
      ])
      await other.query("commit")
    } finally {
      await other.end()
    }
    const dialog = page.getByRole("dialog", { name: "Rotate raced?" })
    await dialog.getByRole("alert").filter({ hasText: "Another request rotated this API key" }).waitFor()
    // The list shows the prefix the other request stored, without a reload of the page.
    await page
      .getByRole("row", { name: /^raced / })
      .getByText("ck_otherrq…")
      .waitFor()
    for (const width of [375, 1440]) {
      await page.setViewportSize({ width, height: 800 })
      await browser.screenshot(page, `api-keys-rotated-meanwhile-${width}`)
    }
  })
})

describe.runIf(await hasPostgres())("503", () => {
  const outage = useService("secrets", "postgres behind a proxy")

  it("says the service is unavailable while the database is cut off, and works again after", async () => {
    const base = outage.base
    const email = `${unique("outage")}@example.com`
    const api = await apiAs(base, email)
    const slug = await seedProject(api, unique("Outage"))
    const people = await signedIn(base, email, `/projects/${slug}/people`)
    await people.getByText("No pending invites.").waitFor()
    const keys = await browser.open(`${base}/api-keys`)
    await keys.getByLabel("Key name").fill("during-outage")
    // Two more tabs, to open the project list and the API keys (neither a project's page) during the outage.
    const projectList = await browser.open(`${base}/api-keys`)
    await projectList.getByText("No API keys.").waitFor()
    const keyList = await browser.open(`${base}/projects`)
    await keyList.getByRole("table", { name: "Your projects" }).waitFor()
    const unavailable = /^The service is unavailable right now \(.+\)\. Try again in a moment\.$/
    outage.proxy.cut()
    try {
      await people.getByRole("button", { name: "Create invite link" }).click()
      const alert = people.getByRole("form", { name: "Invite someone" }).getByRole("alert")
      await alert.waitFor({ timeout: 15_000 })
      expect(await alert.textContent()).toMatch(unavailable)
      await keys.getByRole("button", { name: "Create API key" }).click()
      const keyAlert = keys.getByRole("form", { name: "Create an API key" }).getByRole("alert")
      await keyAlert.waitFor({ timeout: 15_000 })
      expect(await keyAlert.textContent()).toMatch(unavailable)
      // A project page opened now cannot load: it says so, with a way to try again.
      await people.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Environments" }).click()
      await people.getByRole("button", { name: "Try again" }).waitFor({ timeout: 15_000 })
      // Still saying which project and tab it is, by its address, with the other tabs a click away.
      expect(await people.getByRole("heading", { level: 1 }).textContent()).toBe(slug)
      expect(
        await people
          .getByRole("navigation", { name: "Project" })
          .getByRole("link", { name: "Environments" })
          .getAttribute("aria-current"),
      ).toBe("page")
      // So do the project list and the API keys.
      await projectList.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Projects" }).click()
      await projectList.getByRole("button", { name: "Try again" }).waitFor({ timeout: 15_000 })
      await keyList.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click()
      await keyList.getByRole("button", { name: "Try again" }).waitFor({ timeout: 15_000 })
    } finally {
      outage.proxy.restore()
    }
    await projectList.getByRole("button", { name: "Try again" }).click()
    await projectList.getByRole("table", { name: "Your projects" }).waitFor({ timeout: 15_000 })
    await keyList.getByRole("button", { name: "Try again" }).click()
    await keyList.getByText("No API keys.").waitFor({ timeout: 15_000 })
    await keyList.getByRole("form", { name: "Create an API key" }).waitFor()
    // Once the service is back, trying again loads the page without reloading the app.
    await people.getByRole("button", { name: "Try again" }).click()
    await people.getByRole("table", { name: "Environments" }).waitFor({ timeout: 15_000 })
    await people.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "People" }).click()
    await people.getByText("No pending invites.").waitFor({ timeout: 15_000 })
    await people.getByRole("button", { name: "Create invite link" }).click()
    await people.getByLabel("Invite link value").waitFor({ timeout: 15_000 })
    await keys.getByRole("button", { name: "Create API key" }).click()
    await keys.getByLabel("API key during-outage value").waitFor({ timeout: 15_000 })
  }, 60_000)
})
