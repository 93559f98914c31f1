/**
 * Signing in to the dashboard and what the session's permissions show, in Chromium against the built host
 * (`e2e-node` and `e2e-bun`), with the roles settings of seed 000 §5 (`OIDC_EDITOR_GROUP`, `OIDC_ADMIN_GROUP`,
 * `OIDC_PLATFORM_EDITORS`) and a real identity provider (`oidc-provider`):
 * - the identity provider's button signs in and comes back to the page asked for; a failed sign-in's reason is
 *   a sentence; the development login takes an e-mail and groups;
 * - a view-only person sees no write control anywhere; a restricted platform is shown locked with the reason;
 *   only admins see deletes, API tokens and the audit log.
 */
import { freePort, type OidcProvider, startOidcProvider } from "@coffer/contract"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Host, start } from "../host.js"
import { useBrowser } from "./browser.js"
import { saveSchema, schemasAs, seedPlatforms, signedIn } from "./dashboardApi.js"

const browser = useBrowser()

const CALLBACK = "/api/auth/oauth2/callback/oidc"
const RESTRICTED = "locked-ios"
const OPEN = "open-web"

let host: Host
let provider: OidcProvider
/** The public origin (`localhost`), which the provider redirects back to and the cookies belong to. */
let base: string
beforeAll(async () => {
  const issuerPort = await freePort()
  const clientSecret = "dashboard-e2e-secret-0123456789"
  host = await start({
    args: ["serve", "--only", "schemas"],
    env: {
      OIDC_ISSUER: `http://127.0.0.1:${issuerPort}`,
      OIDC_CLIENT_ID: "coffer-dashboard",
      OIDC_CLIENT_SECRET: clientSecret,
      OIDC_NAME: "Sign in with Test IdP",
      OIDC_EDITOR_GROUP: "editors",
      OIDC_ADMIN_GROUP: "admins",
      OIDC_PLATFORM_EDITORS: `${RESTRICTED}:mobile`,
    },
  })
  base = `http://localhost:${new URL(host.schemas!).port}`
  provider = await startOidcProvider({
    port: issuerPort,
    clientId: "coffer-dashboard",
    clientSecret,
    redirectUris: [`${base}${CALLBACK}`],
    accounts: {
      ada: { email: "ada@example.com", groups: ["editors"] },
      unverified: { email: "unverified@example.com", emailVerified: false, groups: ["editors"] },
    },
  })
  const admin = await schemasAs(base, "setup-admin@example.com", ["admins"])
  await seedPlatforms(admin, { [RESTRICTED]: { versions: ["1.0.0"], kind: "ios" }, [OPEN]: ["1.0.0", "2.0.0"] })
  await saveSchema(admin, `${OPEN}/1.0.0`, { title: "open" })
})
afterAll(async () => {
  await host?.stop()
  await provider?.stop()
})

/** The header's links. */
const navOf = async (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents()

describe("signing in", () => {
  it("signs in with the identity provider's button and comes back to the page asked for", async () => {
    const page = await browser.open(`${base}/platforms/${OPEN}`)
    await page.waitForURL(/\/sign-in\?returnTo=/)
    // The provider's own pages are not under test: the button's start request runs (its state cookie kept in the
    // browser's context), and the login at the provider is made by the provider's test browser.
    let authorization: string | undefined
    await page.route("**/api/auth/oidc/start?*", async (route) => {
      const started = await route.fetch({ maxRedirects: 0 })
      authorization = started.headers().location
      await route.fulfill({ status: 200, contentType: "text/plain", body: "signing in" })
    })
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click()
    await page.waitForURL(/\/api\/auth\/oidc\/start\?returnTo=%2Fplatforms%2Fopen-web$/)
    expect(authorization).toMatch(new RegExp(`^${provider.issuer}/`))
    const callback = await provider.signIn(authorization!, "ada")
    await page.goto(`${base}${callback.pathname}${callback.search}`)
    await page.waitForURL(`${base}/platforms/${OPEN}`)
    await page.getByRole("heading", { name: OPEN }).waitFor()
    // The signed-in account is fetched apart from the platform: wait for it rather than read it at once.
    await page.getByText("ada@example.com").waitFor()
    // ada is an editor (her provider groups): she may add versions here.
    await page.getByRole("form", { name: "Add a version" }).waitFor()

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.waitForURL(`${base}/sign-in`)
    await page.goto(`${base}/platforms`)
    await page.waitForURL(/\/sign-in\?returnTo=%2Fplatforms/)
  })

  it("signs in on the first try from the address the start line prints (127.0.0.1, not the public origin)", async () => {
    const page = await browser.open(`${host.schemas}/platforms/${OPEN}`)
    await page.waitForURL(/\/sign-in\?returnTo=/)
    let authorization: string | undefined
    await page.route("**/api/auth/oidc/start?*", async (route) => {
      const started = await route.fetch({ maxRedirects: 0 })
      authorization = started.headers().location
      await route.fulfill({ status: 200, contentType: "text/plain", body: "signing in" })
    })
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click()
    // Started on the public origin, the state cookie is where the provider sends the browser back.
    await page.waitForURL(`${base}/api/auth/oidc/start?returnTo=%2Fplatforms%2F${OPEN}`)
    const callback = await provider.signIn(authorization!, "ada")
    await page.goto(`${base}${callback.pathname}${callback.search}`)
    await page.waitForURL(`${base}/platforms/${OPEN}`)
    await page.getByText("ada@example.com").waitFor()
  })

  it("tells a person whose address the provider has not verified to verify it", async () => {
    const page = await browser.open(`${base}/sign-in`)
    let authorization: string | undefined
    await page.route("**/api/auth/oidc/start?*", async (route) => {
      const started = await route.fetch({ maxRedirects: 0 })
      authorization = started.headers().location
      await route.fulfill({ status: 200, contentType: "text/plain", body: "signing in" })
    })
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click()
    await page.waitForURL(/\/api\/auth\/oidc\/start\?/)
    const callback = await provider.signIn(authorization!, "unverified")
    await page.goto(`${base}${callback.pathname}${callback.search}`)
    await page.waitForURL(`${base}/sign-in?error=email`)
    const alert = page.getByRole("alert").first()
    await alert.waitFor()
    // The provider did send an address: asking an administrator to release the claim would not help.
    expect(await alert.textContent()).toContain("verify it and sign in again")
  })

  it.each([
    ["expired", "took too long"],
    ["refused", "refused the sign-in"],
    ["email", "did not share a verified e-mail address"],
    ["unavailable", "unavailable right now"],
    ["anything", "did not succeed"],
  ])("says what ?error=%s means", async (reason, sentence) => {
    const page = await browser.open(`${base}/sign-in?error=${reason}`)
    const alert = page.getByRole("alert").first()
    await alert.waitFor()
    expect(await alert.textContent()).toContain(sentence)
  })

  it("records the development login's groups on the session", async () => {
    const page = await signedIn(browser, base, "groups@example.com", "/platforms", ["editors", "mobile"])
    const session = await page.evaluate(() => fetch("/api/auth/get-session").then((response) => response.json()))
    expect(session).toMatchObject({
      session: { user: { email: "groups@example.com", groups: ["editors", "mobile"] } },
      permissions: { write: true, manage: false, restricted: [] },
    })
  })
})

describe("permissions drive the interface", () => {
  it("shows a view-only person no write control", async () => {
    const page = await signedIn(browser, base, "viewer@example.com", "/platforms")
    await page.getByText("You can view platforms and schemas, but not change them").waitFor()
    expect(await navOf(page)).toEqual(["Platforms"])
    expect(await page.getByRole("form", { name: "Create a platform" }).count()).toBe(0)

    await page.getByRole("link", { name: OPEN }).click()
    await page.getByText(/Locked: You can view the configuration but not change it/).waitFor()
    await page.getByRole("table", { name: /Versions of/ }).waitFor()
    for (const name of ["Add version", "Change kind", "Delete version 1.0.0", `Delete platform ${OPEN}`]) {
      expect(await page.getByRole("button", { name }).count(), name).toBe(0)
    }

    await page.getByRole("link", { name: `Schema of ${OPEN} 1.0.0` }).click()
    const editor = page.getByLabel("Content (JSON)")
    await editor.waitFor()
    expect(await editor.getAttribute("readonly")).not.toBeNull()
    expect(await page.getByRole("button", { name: "Save schema" }).count()).toBe(0)

    await page.goto(`${base}/tokens`)
    await page.getByText("Managing API tokens needs the admin permission").waitFor()
    await page.goto(`${base}/audit`)
    await page.getByText("The audit log needs the admin permission").waitFor()
  })

  it("shows an editor a restricted platform locked with the reason, and no deletes", async () => {
    const page = await signedIn(browser, base, "editor@example.com", "/platforms", ["editors"])
    const row = page.getByRole("row", { name: new RegExp(`^${RESTRICTED}`) })
    await row.waitFor()
    expect(await row.getByRole("rowheader").textContent()).toContain("Locked")
    expect(
      await page
        .getByRole("row", { name: new RegExp(`^${OPEN}`) })
        .getByText("Locked")
        .count(),
    ).toBe(0)
    await page.getByRole("form", { name: "Create a platform" }).waitFor()
    expect(await navOf(page)).toEqual(["Platforms"])

    await row.getByRole("link", { name: RESTRICTED }).click()
    await page
      .getByText(/Locked: Only the groups listed for this platform \(OIDC_PLATFORM_EDITORS\) and admins may change it/)
      .waitFor()
    expect(await page.getByRole("form", { name: "Add a version" }).count()).toBe(0)

    await page.goto(`${base}/platforms/${OPEN}`)
    await page.getByRole("form", { name: "Add a version" }).waitFor()
    await page.getByRole("form", { name: "Change the kind" }).waitFor()
    expect(await page.getByRole("button", { name: /^Delete/ }).count()).toBe(0)
  })

  it("lets a member of the platform's group change it", async () => {
    const page = await signedIn(browser, base, "mobile@example.com", `/platforms/${RESTRICTED}`, ["editors", "mobile"])
    await page.getByRole("form", { name: "Add a version" }).waitFor()
    expect(await page.getByText(/Locked:/).count()).toBe(0)
  })

  it("shows admins deletes, API tokens and the audit log", async () => {
    const page = await signedIn(browser, base, "admin@example.com", `/platforms/${RESTRICTED}`, ["admins"])
    await page.getByRole("button", { name: "Delete version 1.0.0" }).waitFor()
    await page.getByRole("button", { name: `Delete platform ${RESTRICTED}` }).waitFor()
    expect(await navOf(page)).toEqual(["Platforms", "API tokens", "Audit log"])
    await page.getByRole("link", { name: "API tokens" }).click()
    await page.getByRole("form", { name: "Create an API token" }).waitFor()
  })
})
