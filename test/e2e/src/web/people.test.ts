/**
 * People and invites (issue 12 §8) in Chromium against the built host (`e2e-node` and `e2e-bun`), with two people
 * in two browsers: the owner invites with a link shown once, the other person opens it signed out, signs in and
 * comes back to accept; the owner withdraws an invite after a confirmation, changes a member's role and removes
 * them; a member leaves; a withdrawn or used link (404) and an invite for someone already in the project (409) are
 * explained; a second link opened in the same tab is followed. Each test fails on a console error, a page error or a CSP violation (`browser.ts`).
 */
import type { Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { type ApiSession, addMember, apiAs, seedProject, signInPage } from "./api.js"
import { POLL, useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("secrets")

let people = 0
const emailOf = (what: string) => `${what}${++people}-${Date.now()}@example.com`

/** The owner of a new project, signed in on its People page in the first browser. */
const ownerOnPeople = async () => {
  const email = emailOf("owner")
  const api = await apiAs(served.base, email)
  const slug = await seedProject(api, `People ${people} ${Date.now()}`)
  const path = `/projects/${slug}/people`
  const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
  await signInPage(page, email)
  await page.waitForURL(`${served.base}${path}`)
  await page.getByRole("table", { name: /Members of/ }).waitFor()
  return { api, slug, page, email }
}

/** Creates an invite on the page and reads the link it shows once, in a dialog left open. */
const inviteOnPage = async (page: Page, role: "Can read" | "Can write") => {
  const form = page.getByRole("form", { name: "Invite someone" })
  await form.getByLabel("Role").selectOption({ label: role })
  await form.getByRole("button", { name: "Create invite link" }).click()
  const link = (await page.getByLabel("Invite link value").textContent())!
  expect(link).toMatch(/\/invite#cfi_[A-Za-z0-9_-]{43}$/)
  return link
}

/** Closes the dialog of the link shown once (Done). */
const linkDone = async (page: Page) => {
  await page.getByRole("dialog", { name: "Invite link created" }).getByRole("button", { name: "Done" }).click()
  await page.getByLabel("Invite link value").waitFor({ state: "detached" })
}

/** The invite page for `link`'s token on this host (the link itself names the configured public origin). */
const invitePage = (link: string) => `${served.base}/invite#${link.split("#")[1]}`

const membersOf = async (api: ApiSession, slug: string) =>
  (await api.call<{ members: ReadonlyArray<{ email: string; role: string }> }>("GET", `/api/projects/${slug}/members`))
    .members

const rowOf = (page: Page, email: string) => page.getByRole("row").filter({ hasText: email })

describe("invites", () => {
  it("draws the invite form once the members are listed, so it does not move under the pointer", async () => {
    const { api, slug, page } = await ownerOnPeople()
    for (const what of ["a", "b", "c"]) await addMember(api, await apiAs(served.base, emailOf(what)), slug, "read")
    // The members come back slowly, as on a busy network.
    await page.route(`**/api/projects/${slug}/members`, async (route) => {
      if (route.request().method() === "GET") await new Promise((resolve) => setTimeout(resolve, 500))
      await route.continue()
    })
    const tabs = page.getByRole("navigation", { name: "Project" })
    await tabs.getByRole("link", { name: "Secrets" }).click()
    await tabs.getByRole("link", { name: "People" }).click()
    const button = page
      .getByRole("form", { name: "Invite someone" })
      .getByRole("button", { name: "Create invite link" })
    await button.waitFor()
    const first = await button.boundingBox()
    await page
      .getByRole("table", { name: /Members of/ })
      .locator("tbody tr")
      .nth(3)
      .waitFor()
    expect(await button.boundingBox()).toEqual(first)
  })

  it("invites with a link shown once; the invited person signs in, comes back and joins", async () => {
    const owner = await ownerOnPeople()
    const link = await inviteOnPage(owner.page, "Can write")
    await owner.page.getByRole("button", { name: "Copy the invite link" }).click()
    await owner.page.getByText("Copied to the clipboard").waitFor()
    expect(await owner.page.evaluate(() => navigator.clipboard.readText())).toBe(link)
    await owner.page.getByRole("table", { name: "Pending invites" }).getByText("Can write").waitFor()
    // Shown once: gone after Done, and not shown again after a reload.
    await owner.page.getByRole("button", { name: "Done" }).click()
    await owner.page.getByLabel("Invite link value").waitFor({ state: "detached" })

    const guestEmail = emailOf("guest")
    const guest = await browser.openOther(invitePage(link))
    await guest.waitForURL(/\/sign-in\?returnTo=/)
    // The token is in no address the server sees.
    expect(guest.url()).not.toContain("cfi_")
    await signInPage(guest, guestEmail)
    await guest.waitForURL(`${served.base}/invite`)
    await guest.getByText(`Accept to join it as ${guestEmail}`).waitFor()
    await guest.getByRole("button", { name: "Accept invite" }).click()
    await guest.getByRole("status").filter({ hasText: "You joined" }).waitFor()
    await guest.getByRole("link", { name: /^People / }).click()
    await guest.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "People" }).click()
    await guest.getByRole("heading", { name: "Members" }).waitFor()
    // The members are fetched apart from the heading: wait for them, or no role select could be there yet.
    await rowOf(guest, guestEmail).waitFor()
    // A member sees the people but manages nobody.
    expect(await guest.getByRole("form", { name: "Invite someone" }).count()).toBe(0)
    expect(await guest.getByRole("combobox").count()).toBe(0)

    await owner.page.reload()
    await rowOf(owner.page, guestEmail).waitFor()
    expect(await owner.page.getByLabel(`Role of ${guestEmail}`, { exact: true }).inputValue()).toBe("write")
    // Members and invites are fetched apart: wait for the invites' list to say it is empty.
    await owner.page.getByText("No pending invites.").waitFor()

    // The used link answers 404, said in a sentence.
    const again = await browser.openOther(invitePage(link))
    await again.getByRole("button", { name: "Accept invite" }).click()
    await again.getByRole("alert").filter({ hasText: "This invite link no longer works" }).waitFor()
  })

  it("explains an invite for someone already in the project (409), which stays usable", async () => {
    const owner = await ownerOnPeople()
    const memberEmail = emailOf("member")
    const member = await apiAs(served.base, memberEmail)
    await addMember(owner.api, member, owner.slug, "read")
    const link = await inviteOnPage(owner.page, "Can read")
    const page = await browser.openOther(`${served.base}/sign-in`)
    await signInPage(page, memberEmail)
    await page.waitForURL(`${served.base}/projects`)
    await page.goto(invitePage(link))
    await page.getByRole("button", { name: "Accept invite" }).click()
    await page
      .getByRole("alert")
      .filter({ hasText: `You (${memberEmail}) are already in this project` })
      .waitFor()
    const pending = await owner.api.call<{ invites: ReadonlyArray<unknown> }>(
      "GET",
      `/api/projects/${owner.slug}/invites`,
    )
    expect(pending.invites).toHaveLength(1)
  })

  it("withdraws a pending invite after a confirmation, after which its link no longer works", async () => {
    const owner = await ownerOnPeople()
    const link = await inviteOnPage(owner.page, "Can read")
    await linkDone(owner.page)
    const pending = owner.page.getByRole("table", { name: "Pending invites" })
    const pendingNow = async () =>
      (await owner.api.call<{ invites: ReadonlyArray<unknown> }>("GET", `/api/projects/${owner.slug}/invites`)).invites
        .length
    // The link is lost with the invite: it asks first, and Cancel keeps both.
    await pending.getByRole("button", { name: /^Withdraw the can read invite created / }).click()
    const dialog = owner.page.getByRole("dialog", { name: "Withdraw the can read invite?" })
    expect(await dialog.textContent()).toContain("whoever has its link can no longer join")
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await dialog.waitFor({ state: "detached" })
    expect(await pendingNow()).toBe(1)
    await pending.getByRole("button", { name: /^Withdraw the can read invite created / }).click()
    await dialog.getByRole("button", { name: "Withdraw invite" }).click()
    await owner.page.getByText("Invite withdrawn: its link no longer works").waitFor()
    expect(await pendingNow()).toBe(0)
    await owner.page.getByText("No pending invites.").waitFor()

    const page = await browser.openOther(`${served.base}/sign-in`)
    await signInPage(page, emailOf("late"))
    await page.waitForURL(`${served.base}/projects`)
    await page.goto(invitePage(link))
    await page.getByRole("button", { name: "Accept invite" }).click()
    await page.getByRole("alert").filter({ hasText: "withdrawn by the project's owner" }).waitFor()
    expect(await page.getByRole("button", { name: "Accept invite" }).isDisabled()).toBe(true)
  })

  it("says an invite withdrawn elsewhere was no longer pending, and brings the list up to date", async () => {
    const owner = await ownerOnPeople()
    await inviteOnPage(owner.page, "Can write")
    await linkDone(owner.page)
    const { invites } = await owner.api.call<{ invites: ReadonlyArray<{ id: string }> }>(
      "GET",
      `/api/projects/${owner.slug}/invites`,
    )
    await owner.api.call("DELETE", `/api/projects/${owner.slug}/invites/${invites[0]!.id}`)
    await owner.page
      .getByRole("table", { name: "Pending invites" })
      .getByRole("button", { name: /^Withdraw the can write invite created / })
      .click()
    const dialog = owner.page.getByRole("dialog", { name: "Withdraw the can write invite?" })
    await dialog.getByRole("button", { name: "Withdraw invite" }).click()
    await owner.page.getByText("That invite was no longer pending").waitFor()
    await dialog.waitFor({ state: "detached" })
    await owner.page.getByText("No pending invites.").waitFor()
  })

  it("follows a second invite link opened in the same tab", async () => {
    const owner = await apiAs(served.base, emailOf("owner"))
    const names = [`First ${people} ${Date.now()}`, `Second ${people} ${Date.now()}`]
    const links: Array<string> = []
    for (const name of names) {
      const slug = await seedProject(owner, name)
      links.push((await owner.call<{ url: string }>("POST", `/api/projects/${slug}/invites`, { role: "read" })).url)
    }
    const page = await browser.openOther(`${served.base}/sign-in`)
    await signInPage(page, emailOf("guest"))
    await page.waitForURL(`${served.base}/projects`)
    for (const [index, link] of links.entries()) {
      // The second link changes only the fragment of the address the first one left: no page is loaded.
      await page.goto(invitePage(link))
      await page.waitForURL(`${served.base}/invite`)
      await page.getByRole("button", { name: "Accept invite" }).click()
      await page
        .getByRole("status")
        .filter({ hasText: `You joined ${names[index]}` })
        .waitFor()
    }
  })

  it("explains an address without an invite in it", async () => {
    const page = await browser.open(`${served.base}/invite`)
    await page.getByRole("alert").filter({ hasText: "This address has no invite in it" }).waitFor()
    // As after joining and reloading: the way to the project is offered.
    await page.getByRole("link", { name: "your projects" }).click()
    await page.waitForURL(/\/(projects|sign-in)/)
  })
})

describe("members", () => {
  it("changes a member's role only with Change role, and removes them", async () => {
    const owner = await ownerOnPeople()
    const memberEmail = emailOf("member")
    const member = await apiAs(served.base, memberEmail)
    await addMember(owner.api, member, owner.slug, "read")
    await owner.page.reload()
    // Owner first, as the owner; nobody can change or remove the owner.
    const rows = owner.page.getByRole("table", { name: /Members of/ }).locator("tbody tr")
    expect(await rows.first().textContent()).toContain(owner.email)
    expect(await rows.first().textContent()).toContain("Owner")
    expect(await owner.page.getByLabel(`Role of ${owner.email}`, { exact: true }).count()).toBe(0)

    const roleNow = async () =>
      (await membersOf(owner.api, owner.slug)).find((entry) => entry.email === memberEmail)?.role
    const select = owner.page.getByLabel(`Role of ${memberEmail}`, { exact: true })
    const apply = owner.page.getByRole("button", { name: `Change role of ${memberEmail}` })
    // Nothing to apply while the current role is picked.
    expect(await apply.isDisabled()).toBe(true)
    // The select only picks: arrow keys move through the roles without changing anyone's rights.
    await select.focus()
    await owner.page.keyboard.press("ArrowDown")
    expect(await select.inputValue()).toBe("write")
    await owner.page.keyboard.press("ArrowUp")
    await owner.page.keyboard.press("ArrowDown")
    expect(await apply.isDisabled()).toBe(false)
    // Given the time a PATCH would take to be sent, none was.
    await owner.page.waitForTimeout(300)
    expect(await roleNow()).toBe("read")
    // Change role applies the role picked, from the keyboard; the focus stays on the button, now greyed out.
    await owner.page.keyboard.press("Tab")
    await owner.page.keyboard.press("Enter")
    await owner.page.getByText(`${memberEmail} now: Can write`).waitFor()
    expect(await roleNow()).toBe("write")
    await expect.poll(() => apply.getAttribute("aria-disabled"), POLL).toBe("true")
    expect(await owner.page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
      `Change role of ${memberEmail}`,
    )
    // And back, with the mouse.
    await select.selectOption("read")
    await apply.click()
    await expect.poll(roleNow, POLL).toBe("read")
    await owner.page.getByText(`${memberEmail} now: Can read`).waitFor()

    await owner.page.getByRole("button", { name: `Remove ${memberEmail}` }).click()
    const dialog = owner.page.getByRole("dialog", { name: `Remove ${memberEmail}?` })
    await dialog.getByRole("button", { name: "Remove member" }).click()
    await owner.page.getByText(`Removed ${memberEmail}`).waitFor()
    await rowOf(owner.page, memberEmail).waitFor({ state: "detached" })
    expect((await membersOf(owner.api, owner.slug)).map((entry) => entry.email)).toEqual([owner.email])
  })

  it("says a member removed elsewhere was no longer a member, and brings the list up to date", async () => {
    const owner = await ownerOnPeople()
    const memberEmail = emailOf("member")
    const member = await apiAs(served.base, memberEmail)
    await addMember(owner.api, member, owner.slug, "read")
    await owner.page.reload()
    await rowOf(owner.page, memberEmail).waitFor()
    const { members } = await owner.api.call<{ members: ReadonlyArray<{ userId: string; email: string }> }>(
      "GET",
      `/api/projects/${owner.slug}/members`,
    )
    const userId = members.find((entry) => entry.email === memberEmail)!.userId
    await owner.api.call("DELETE", `/api/projects/${owner.slug}/members/${userId}`)

    await owner.page.getByRole("button", { name: `Remove ${memberEmail}` }).click()
    const dialog = owner.page.getByRole("dialog", { name: `Remove ${memberEmail}?` })
    await dialog.getByRole("button", { name: "Remove member" }).click()
    await owner.page.getByText(`${memberEmail} was no longer a member`).waitFor()
    await dialog.waitFor({ state: "detached" })
    await rowOf(owner.page, memberEmail).waitFor({ state: "detached" })
  })

  it("lets a member leave the project", async () => {
    const ownerEmail = emailOf("owner")
    const owner = await apiAs(served.base, ownerEmail)
    const slug = await seedProject(owner, `Leave ${people} ${Date.now()}`)
    const memberEmail = emailOf("member")
    const member = await apiAs(served.base, memberEmail)
    await addMember(owner, member, slug, "write")
    const path = `/projects/${slug}/people`
    const page = await browser.openOther(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
    await signInPage(page, memberEmail)
    await page.waitForURL(`${served.base}${path}`)
    await rowOf(page, memberEmail).getByRole("button", { name: "Leave project" }).click()
    await page
      .getByRole("dialog", { name: /^Leave / })
      .getByRole("button", { name: "Leave project" })
      .click()
    await page.waitForURL(`${served.base}/projects`)
    await page.getByText(/^You left /).waitFor()
    expect((await membersOf(owner, slug)).map((entry) => entry.email)).toEqual([ownerEmail])
  })
})
