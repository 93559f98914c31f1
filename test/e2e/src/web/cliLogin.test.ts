/**
 * `coffer login --web` end to end (`e2e-node` and `e2e-bun`): the real command prints an address and a code, a
 * signed-out person opens it in Chromium, signs in, lands back on the approval page, compares the code, picks a
 * project and a scope and approves; the command stores the key it receives, and `coffer secrets list` reads with
 * it. Denying ends the command with exit code 4. While one decision is on its way the other cannot be sent. The page is checked with axe and at 375 px, and photographed at
 * 1440 and 375 px.
 */
import { existsSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { coffer } from "../cliHarness.js"
import { webLogin } from "../cliLoginRun.js"
import { freshDirectory } from "../host.js"
import { overflowing, settled, sidewaysOverflow } from "./a11y.js"
import { apiAs, seedProject, signInPage } from "./api.js"
import { expectAccessible } from "./axe.js"
import { holdBack, useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()
const served = useService("secrets")

let count = 0
const unique = (what: string) => `${what}${++count}-${Date.now()}`

const userEnv = () => {
  const home = freshDirectory()
  return { HOME: home, XDG_CONFIG_HOME: join(home, ".config") }
}

/** The printed address on the service the test reaches (the host's public origin may name `localhost`). */
const onService = (url: string) => {
  const printed = new URL(url)
  return `${served.base}${printed.pathname}${printed.search}`
}

describe("coffer login --web", () => {
  it("signs in, approves a project with write scope, and the command stores a key that lists secrets", async () => {
    const email = `${unique("owner")}@example.com`
    const owner = await apiAs(served.base, email)
    const name = unique("Login Target")
    const slug = await seedProject(owner, name, { development: { GREETING: "hello" } })
    await seedProject(owner, unique("Other"))
    const env = userEnv()
    const login = webLogin(served.base, env)
    const { url, code } = await login.printed
    expect(new URL(url).pathname).toBe("/cli-login")
    expect(new URL(url).searchParams.get("code")).toBe(code)

    // Signed out: the page sends the person to sign in, and back here with the code.
    const page = await browser.open(onService(url))
    await page.waitForURL(/\/sign-in\?returnTo=/)
    await signInPage(page, email)
    await page.waitForURL(onService(url))
    const form = page.getByRole("form", { name: "Approve the command-line login" })
    await form.waitFor()
    await expect.poll(() => form.textContent()).toContain("e2e-laptop")
    await expect.poll(() => form.textContent()).toContain(code)
    await expect.poll(() => form.textContent()).toContain("Check that your terminal shows the same code")
    expect(await form.textContent()).toContain("Approve only if you ran coffer login --web yourself just now")
    await settled(page)
    await expectAccessible(page, "the command-line login page")
    await browser.screenshot(page, "cli-login-1440")
    await page.setViewportSize({ width: 375, height: 800 })
    await settled(page)
    expect(await sidewaysOverflow(page), JSON.stringify(await overflowing(page))).toBeLessThanOrEqual(0)
    await expectAccessible(page, "the command-line login page at 375 px")
    await browser.screenshot(page, "cli-login-375")

    await form.getByLabel("Project").selectOption({ label: name })
    await form.getByLabel("Scope").selectOption("write")
    await form.getByRole("button", { name: "Approve" }).click()
    await page.getByText("The command line receives its key when it next checks").waitFor()
    await browser.screenshot(page, "cli-login-approved-375")

    const outcome = await login.outcome
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.stderr).toContain(`project ${slug}, write scope`)
    expect(outcome.stdout + outcome.stderr).not.toMatch(/cfk_/)
    const config = join(env.XDG_CONFIG_HOME, "coffer/config.json")
    expect(existsSync(config)).toBe(true)
    expect(statSync(config).mode & 0o777).toBe(0o600)

    const listed = await coffer(["secrets", "list", "--project", slug, "--env", "development"], { env })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain("GREETING")
    // The key is the approver's, named after the machine, and audited as created.
    const { apiKeys } = await owner.call<{ apiKeys: Array<{ name: string; scope: string }> }>(
      "GET",
      `/api/api-keys?project=${slug}`,
    )
    expect(apiKeys).toEqual([expect.objectContaining({ name: "e2e-laptop", scope: "write" })])
  })

  it("denied in the browser: the command ends with exit code 4 and stores nothing", async () => {
    const email = `${unique("owner")}@example.com`
    const owner = await apiAs(served.base, email)
    await seedProject(owner, unique("Denied"))
    const env = userEnv()
    const login = webLogin(served.base, env)
    const { url } = await login.printed
    const page = await browser.open(
      `${served.base}/sign-in?returnTo=${encodeURIComponent(new URL(url).pathname + new URL(url).search)}`,
    )
    await signInPage(page, email)
    await page.getByRole("button", { name: "Deny" }).click()
    await page.getByText("Denied.").waitFor()
    const outcome = await login.outcome
    expect(outcome.code).toBe(4)
    expect(outcome.stderr).toContain("denied")
    expect(existsSync(join(env.XDG_CONFIG_HOME, "coffer/config.json"))).toBe(false)
    // The code is used up: the page says so instead of offering to approve it again.
    await page.goto(onService(url))
    await page.getByText("This login code does not work any more").waitFor()
    await expectAccessible(page, "an unknown login code")
  })

  it("while Approve is on its way, Deny cannot be pressed (and the reverse): one decision is sent", async () => {
    const email = `${unique("owner")}@example.com`
    const owner = await apiAs(served.base, email)
    const name = unique("Held")
    await seedProject(owner, name)
    const sent: Array<string> = []
    for (const [decision, press, other] of [
      ["approve", "Approve", "Deny"],
      ["deny", "Deny", "Approve"],
    ] as const) {
      const login = webLogin(served.base, userEnv())
      const { url } = await login.printed
      const page = await browser.open(onService(url))
      // The browser's session is kept from one page to the next: only the first is sent to sign in.
      if (decision === "approve") {
        await page.waitForURL(/\/sign-in\?returnTo=/)
        await signInPage(page, email)
      }
      page.on("request", (request) => {
        const path = new URL(request.url()).pathname
        if (request.method() === "POST" && /\/api\/cli-logins\/[^/]+\/(approve|deny)$/.test(path))
          sent.push(path.split("/").at(-1)!)
      })
      const form = page.getByRole("form", { name: "Approve the command-line login" })
      await form.getByLabel("Project").selectOption({ label: name })
      const release = await holdBack(page, `**/api/cli-logins/*/${decision}`)
      await form.getByRole("button", { name: press }).click()
      await expect.poll(() => sent.length).toBe(decision === "approve" ? 1 : 2)
      // Pressed, or the form sent with Enter, while the first decision is still on its way: nothing more is sent.
      expect(await form.getByRole("button", { name: other }).getAttribute("aria-disabled")).toBe("true")
      await form.getByRole("button", { name: other }).click({ force: true })
      await form.getByRole("spinbutton").press("Enter")
      release()
      await page.getByText(decision === "approve" ? "Approved." : "Denied.").waitFor()
      expect((await login.outcome).code).toBe(decision === "approve" ? 0 : 4)
    }
    expect(sent).toEqual(["approve", "deny"])
  })
})
