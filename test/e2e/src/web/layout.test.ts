/**
 * The Secrets app at 375 px and 1440 px and by keyboard, in Chromium against the built host (`e2e-node` and
 * `e2e-bun`): every page fits the width without sideways scrolling of the page itself (wide tables scroll in
 * their own box), every control has an accessible name, axe-core finds no WCAG 2.1 A or AA violation (on every
 * page, the sign-in and invite pages and the main dialogs), and screenshots are left for a person to look at
 * (`test/e2e/screenshots/secrets-*.png`, gitignored); an API key is created and deleted with the keyboard alone.
 */
import type { Locator, Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import {
  brokenCells,
  expectControlEdgesVisible,
  focusedElement,
  liveTexts,
  overflowing,
  settled,
  sidewaysOverflow,
  unnamedControls,
} from "./a11y.js"
import { addMember, apiAs, seedProject, signInPage } from "./api.js"
import { expectAccessible } from "./axe.js"
import { POLL, useBrowser } from "./browser.js"
import { useService } from "./service.js"

const browser = useBrowser()

const served = useService("secrets")

const WIDTHS = [375, 1440] as const

/** A project with something on every page (secrets, a member, an invite, an API key) and its owner's e-mail. */
const seedPages = async () => {
  const email = `layout-with-a-rather-long-address-${Date.now()}@example.com`
  const owner = await apiAs(served.base, email)
  const slug = await seedProject(owner, `Payments platform ${Date.now()}`, {
    development: {
      DATABASE_URL: "postgres://dev.internal:5432/payments",
      STRIPE_SECRET_KEY_FOR_THE_SANDBOX_ACCOUNT_WITH_A_LONG_NAME: "sk_test_123",
      EMPTY: "",
    },
    staging: { DATABASE_URL: "postgres://staging.internal:5432/payments" },
    production: { DATABASE_URL: "postgres://prod.internal:5432/payments", SENTRY_DSN: "https://sentry.example/1" },
  })
  await owner.call("POST", `/api/projects/${slug}/environments/development/secrets`, {
    key: "DATABASE_URL",
    value: "postgres://dev2.internal:5432/payments",
  })
  const member = await apiAs(served.base, `member-with-an-address-as-long-as-the-owners-${Date.now()}@example.com`)
  await addMember(owner, member, slug, "write")
  // The owner sees it, and its holder's long address, on the API keys page.
  await member.call("POST", "/api/api-keys", { name: "member-laptop", projectSlug: slug, scope: "read" })
  await owner.call("POST", `/api/projects/${slug}/invites`, { role: "write" })
  await owner.call("POST", "/api/api-keys", {
    name: "ci-deploy",
    projectSlug: slug,
    scope: "write",
    expiresInDays: 90,
  })
  const { token } = await owner.call<{ token: string }>("POST", `/api/projects/${slug}/invites`, {})
  return { email, slug, token }
}

/**
 * Each page of `slug` with a text its first render shows, and (where a part loads apart without saying "Loading")
 * that part; `settled` then waits for every part that says it is loading.
 */
const pagesOf = (slug: string): ReadonlyArray<readonly [string, string, string, ((page: Page) => Locator)?]> => [
  ["projects", "/projects", "New project"],
  ["grid", `/projects/${slug}`, "SENTRY_DSN"],
  ["compare", `/projects/${slug}/compare`, "STRIPE_SECRET_KEY_FOR_THE_SANDBOX_ACCOUNT_WITH_A_LONG_NAME"],
  ["environments", `/projects/${slug}/environments`, "New environment"],
  ["history", `/projects/${slug}/environments/development/secrets/DATABASE_URL/history`, "Back to the secrets"],
  ["people", `/projects/${slug}/people`, "Pending invites"],
  // The keys and the projects (their names in the table, the form) are fetched apart.
  ["api-keys", "/api-keys", "ci-deploy", (page) => page.getByRole("form", { name: "Create an API key" })],
  // The key's name, the target of its entry: the action's label is also an option of the filter bar.
  ["audit", `/projects/${slug}/audit`, "ci-deploy"],
  ["not-found", "/no-such-page", "Page not found"],
  ["signed-in-again", `/signed-in-again?page=${encodeURIComponent(`/projects/${slug}`)}`, "Signed in again"],
]

describe("layout", () => {
  // One width a test: both in one took close to the e2e time limit on a slow box.
  it.each(WIDTHS)("fits every page at %i px, with every control named", async (width) => {
    const { email, slug } = await seedPages()
    const signIn = await browser.open(`${served.base}/sign-in?error=expired`, { width, height: 900 })
    await signIn.getByLabel("E-mail").waitFor()
    await browser.screenshot(signIn, `secrets-sign-in-${width}`)
    expect(await sidewaysOverflow(signIn), `sign-in at ${width} px scrolls sideways`).toBeLessThanOrEqual(0)
    expect(await unnamedControls(signIn), `sign-in at ${width} px`).toEqual([])
    await expectAccessible(signIn, `sign-in at ${width} px`)

    const page = await browser.open(`${served.base}/sign-in`, { width, height: 900 })
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/projects`)
    for (const [name, path, landmark, alsoLoaded] of pagesOf(slug)) {
      await page.goto(`${served.base}${path}`)
      await page.getByText(landmark, { exact: true }).first().waitFor()
      await alsoLoaded?.(page).waitFor()
      await settled(page)
      await browser.screenshot(page, `secrets-${name}-${width}`)
      expect(
        await sidewaysOverflow(page),
        `${name} at ${width} px scrolls sideways: ${await overflowing(page)}`,
      ).toBeLessThanOrEqual(0)
      expect(await unnamedControls(page), `${name} at ${width} px`).toEqual([])
      await expectAccessible(page, `${name} at ${width} px`)
      // On a desktop screen a table shows every column, its row actions included, without scrolling its box.
      if (width === 1440) {
        const scrolled = await page
          .locator(".table-wrap")
          .evaluateAll((boxes) => boxes.map((box) => box.scrollWidth - box.clientWidth))
        expect(
          scrolled.filter((extra) => extra > 0),
          `a table of ${name} scrolls sideways at 1440 px`,
        ).toEqual([])
      }
    }
    // The shown-once link and the dialogs, as they appear over the page.
    await page.goto(`${served.base}/projects/${slug}/people`)
    await page.getByRole("button", { name: "Create invite link" }).click()
    await page.getByLabel("Invite link value").waitFor()
    // The link shows before the pending invites are fetched again; the button is busy until they have arrived.
    await expect.poll(() => page.getByRole("button", { name: "Create invite link" }).isEnabled(), POLL).toBe(true)
    await settled(page)
    await browser.screenshot(page, `secrets-invite-link-${width}`)
    expect(await sidewaysOverflow(page), `invite link at ${width} px`).toBeLessThanOrEqual(0)
    await expectAccessible(page, `invite link at ${width} px`)
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "DATABASE_URL" }).click()
    await page.getByRole("dialog", { name: "DATABASE_URL" }).waitFor()
    await settled(page)
    await browser.screenshot(page, `secrets-secret-dialog-${width}`)
    expect(await unnamedControls(page), `secret dialog at ${width} px`).toEqual([])
    await expectAccessible(page, `secret dialog at ${width} px`)
    await dialogs(page, width)
  })

  it("fits the invite page at 375 px, with every control named", async () => {
    const { token } = await seedPages()
    // Signed in as someone new.
    const guest = await browser.openOther(`${served.base}/sign-in`, { width: 375, height: 900 })
    await signInPage(guest, `guest-${Date.now()}@example.com`)
    await guest.waitForURL(`${served.base}/projects`)
    await guest.goto(`${served.base}/invite#${token}`)
    await guest.getByRole("button", { name: "Accept invite" }).waitFor()
    await browser.screenshot(guest, "secrets-invite-375")
    expect(await unnamedControls(guest)).toEqual([])
    await expectAccessible(guest, "invite")
  })
})

describe("long names", () => {
  it("fits a dialog titled with one long word (a 256-character key) to the screen, Close in view", async () => {
    const email = `long-${Date.now()}@example.com`
    const owner = await apiAs(served.base, email)
    const key = "K".repeat(256)
    const slug = await seedProject(owner, `Long ${Date.now()}`, { development: { [key]: "v" } })
    const page = await browser.open(`${served.base}/sign-in`, { width: 375, height: 900 })
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/projects`)
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: key }).click()
    const dialog = page.getByRole("dialog", { name: key })
    await dialog.waitFor()
    await browser.screenshot(page, "secrets-long-key-dialog-375")
    // Not scrolled sideways to reach Close (which the dialog focuses first), leaving its content out of view.
    expect(await dialog.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0)
    const close = await dialog.getByRole("button", { name: "Close" }).boundingBox()
    const frame = await dialog.boundingBox()
    expect(close!.x + close!.width).toBeLessThanOrEqual(frame!.x + frame!.width)
  })
})

describe("names as long as allowed", () => {
  it.each(WIDTHS)("fit at %i px: a 100-character project, a 64-character environment", async (width) => {
    const email = `ada${Date.now()}@example.com`
    const owner = await apiAs(served.base, email)
    // Unbroken, as a name pasted from an identifier is: nothing to wrap at but where the layout allows it.
    const slug = await seedProject(owner, `P${Date.now()}`.padEnd(100, "P"), { development: { API_URL: "v" } })
    const environment = `preview-${"x".repeat(56)}`
    await owner.call("POST", `/api/projects/${slug}/environments`, { name: environment })
    await owner.call("POST", `/api/projects/${slug}/environments/${environment}/secrets`, {
      key: "API_URL",
      value: "w",
    })
    const page = await browser.open(`${served.base}/sign-in`, { width, height: 900 })
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/projects`)
    for (const [name, path, landmark] of [
      ["grid", `/projects/${slug}`, "API_URL"],
      ["environments", `/projects/${slug}/environments`, "New environment"],
      ["audit", `/projects/${slug}/audit`, "API_URL"],
    ] as const) {
      await page.goto(`${served.base}${path}`)
      await page.getByText(landmark, { exact: true }).first().waitFor()
      await settled(page)
      await browser.screenshot(page, `secrets-long-names-${name}-${width}`)
      expect(
        await sidewaysOverflow(page),
        `${name} at ${width} px scrolls sideways: ${await overflowing(page)}`,
      ).toBeLessThanOrEqual(0)
      if (name === "grid" && width === 375) {
        // One block per key: nothing past the screen's edge, the 64-character environment's cell included, and
        // the key and every cell on the screen.
        const grid = page.locator(".grid-wrap")
        expect(await grid.evaluate((box) => box.scrollWidth - box.clientWidth)).toBeLessThanOrEqual(0)
        const row = page.getByRole("row", { name: /API_URL/ })
        for (const part of [row.getByRole("rowheader"), ...(await row.locator("td").all())]) {
          const box = await part.boundingBox()
          expect(box!.x).toBeGreaterThanOrEqual(0)
          expect(box!.x + box!.width).toBeLessThanOrEqual(375)
        }
      }
      if (name === "grid" && width === 1440) {
        // The environment's name wraps in its column's head, leaving the grid whole and the key its room.
        const grid = page.locator(".grid-wrap")
        expect(await grid.evaluate((box) => box.scrollWidth - box.clientWidth)).toBeLessThanOrEqual(0)
        expect(await brokenCells(page.getByRole("rowheader"))).toEqual([])
      }
      if (name === "audit" && width === 1440) {
        // The environment's long name wraps in a capped block, leaving the e-mail beside it a readable width (it
        // took all but 90 px of it, kept whole on one line).
        for (const cell of await page.locator('td[data-label="Person"]').all()) {
          expect((await cell.boundingBox())!.width).toBeGreaterThanOrEqual(200)
        }
        expect(await brokenCells(page.locator('td[data-label="When"], td[data-label="Action"]'))).toEqual([])
      }
    }
    // The deletion's question names the environment twice; both wrap inside the dialog.
    await page.goto(`${served.base}/projects/${slug}/environments`)
    await page.getByRole("button", { name: `Delete environment ${environment}` }).click()
    const dialog = page.getByRole("dialog", { name: `Delete ${environment}?` })
    await dialog.waitFor()
    await browser.screenshot(page, `secrets-long-names-delete-${width}`)
    expect(await dialog.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0)
  })
})

describe("the header", () => {
  it("marks Projects as the current place at / as at /projects", async () => {
    const email = `header-${Date.now()}@example.com`
    const page = await browser.open(`${served.base}/sign-in?returnTo=%2F`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/`)
    await page.getByRole("heading", { name: "Projects" }).waitFor()
    const nav = page.getByRole("navigation", { name: "Main" })
    expect(await nav.locator('[aria-current="page"]').allTextContents()).toEqual(["Projects"])
  })

  it("shows a usual e-mail whole on a phone", async () => {
    const email = `ada-${String(Date.now()).slice(-6)}@example.com`
    const page = await browser.open(`${served.base}/sign-in`, { width: 375, height: 900 })
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/projects`)
    const shown = page.locator(".who .muted")
    await shown.getByText(email).waitFor()
    // Not cut to "ada-123456@exampl…": the text fits its box.
    expect(await shown.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0)
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
  })
})

describe("long keys and names at 1440 px", () => {
  it("keeps the short values of every row whole beside a 200-character key and 100-character names", async () => {
    const email = `long-rows-${Date.now()}@example.com`
    const owner = await apiAs(served.base, email)
    const key = `${"A".repeat(60)}_VERY_LONG_KEY_${"B".repeat(125)}`
    const slug = await seedProject(owner, `Long rows ${"x".repeat(60)} ${Date.now()}`, {
      development: { [key]: "v", SHORT: "s" },
    })
    const name = "k".repeat(100)
    await owner.call("POST", "/api/api-keys", { name, projectSlug: slug, scope: "read", expiresInDays: 30 })
    const page = await browser.open(`${served.base}/sign-in`, { width: 1440, height: 900 })
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/projects`)

    // The key is the target of its entry: the time, action, environment and address of each entry read whole, and the
    // person keeps a readable width (a long e-mail may still wrap).
    await page.goto(`${served.base}/projects/${slug}/audit`)
    const log = page.getByRole("table", { name: /^Audit log of / })
    await log.getByText(key).waitFor()
    await settled(page)
    await browser.screenshot(page, "secrets-audit-long-key-1440")
    const short = ["When", "Action", "Environment", "Address"].map((label) => `td[data-label="${label}"]`)
    expect(await brokenCells(log.locator(short.join(", ")))).toEqual([])
    expect((await log.locator('td[data-label="Person"]').first().boundingBox())!.width).toBeGreaterThanOrEqual(200)
    // Narrower, the table still fits its box: it has nothing to focus, so a keyboard could not scroll it.
    await page.setViewportSize({ width: 800, height: 900 })
    const box = page.locator(".table-wrap")
    expect(await box.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0)
    await page.setViewportSize({ width: 1440, height: 900 })

    await page.goto(`${served.base}/api-keys`)
    const keys = page.getByRole("table", { name: "API keys" })
    await keys.getByText(name).waitFor()
    await settled(page)
    await browser.screenshot(page, "secrets-api-keys-long-names-1440")
    const columns = ["Scope", "Holder", "Starts with", "Last used", "Expires"]
    expect(await brokenCells(keys.locator(columns.map((label) => `td[data-label="${label}"]`).join(", ")))).toEqual([])
    // Narrower, where the row no longer fits, the names keep a readable width and the table scrolls in its box.
    await page.setViewportSize({ width: 800, height: 900 })
    for (const cell of [keys.getByRole("rowheader", { name }), keys.locator('td[data-label="Project"]').first()]) {
      expect((await cell.boundingBox())!.width).toBeGreaterThanOrEqual(110)
    }
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0)
    await page.setViewportSize({ width: 1440, height: 900 })

    // Compared with an environment that lacks it, the key's row says so in words that are not cut.
    await page.goto(`${served.base}/projects/${slug}/compare`)
    const compared = page.getByRole("table", { name: /^Keys of / })
    await compared.getByText(key).waitFor()
    expect(await brokenCells(compared.locator('td[data-label="Comparison"]'))).toEqual([])
  })
})

describe("import on a phone", () => {
  it("shows each entry that cannot be imported as one block at 375 px, its key on one line", async () => {
    const email = `import-phone-${Date.now()}@example.com`
    const owner = await apiAs(served.base, email)
    const slug = await seedProject(owner, `Import phone ${Date.now()}`)
    const page = await browser.open(`${served.base}/sign-in`, { width: 375, height: 900 })
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/projects`)
    await page.goto(`${served.base}/projects/${slug}`)
    await page.getByRole("button", { name: "Import…" }).click()
    const dialog = page.getByRole("dialog", { name: "Import secrets" })
    await dialog
      .getByLabel(/Or paste it here/)
      .fill('{"PORT": 8080, "DEBUG": true, "NOTHING": null, "ALLOWED_HOSTS": ["a"], "DATABASE": {}}')
    await dialog.getByRole("button", { name: "Preview" }).click()
    const refused = dialog.getByRole("table", { name: "Cannot be imported" })
    await refused.waitFor()
    await settled(page)
    await browser.screenshot(page, "secrets-import-refused-375")
    // Each key reads whole: not cut into pieces by a narrow column beside a wide one.
    const lines = await refused.locator("tbody td.mono").evaluateAll((cells) =>
      cells.map((cell) => {
        const range = document.createRange()
        range.selectNodeContents(cell)
        return [cell.textContent, range.getClientRects().length]
      }),
    )
    expect(lines).toEqual([
      ["NOTHING", 1],
      ["ALLOWED_HOSTS", 1],
      ["DATABASE", 1],
    ])
    expect(await dialog.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0)
    expect(await unnamedControls(page)).toEqual([])
    await expectAccessible(page, "import preview with refusals at 375 px")
  })
})

describe("compare on a phone", () => {
  it("keeps each key in view beside its revealed values at 375 px", async () => {
    const email = `compare-${Date.now()}@example.com`
    const owner = await apiAs(served.base, email)
    const slug = await seedProject(owner, `Compare ${Date.now()}`, {
      development: { DATABASE_URL: "postgres://dev.internal:5432/payments?sslmode=require" },
      staging: { DATABASE_URL: "postgres://staging.internal:5432/payments?sslmode=require" },
    })
    const page = await browser.open(`${served.base}/sign-in`, { width: 375, height: 900 })
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/projects`)
    await page.goto(`${served.base}/projects/${slug}/compare`)
    await page.getByLabel("with").selectOption("staging")
    await page.getByRole("button", { name: "Reveal DATABASE_URL in development and staging" }).click()
    await page.getByText("different values").waitFor()
    await browser.screenshot(page, "secrets-compare-revealed-375")
    // Not scrolled sideways in its box, with the key out of view to the left of the two values.
    const box = page.locator(".table-wrap")
    expect(await box.evaluate((element) => element.scrollWidth - element.clientWidth)).toBeLessThanOrEqual(0)
    const key = await page.getByRole("rowheader", { name: "DATABASE_URL" }).boundingBox()
    expect(key!.x).toBeGreaterThanOrEqual(0)
    expect(key!.x + key!.width).toBeLessThanOrEqual(375)
  })
})

/**
 * From the secret dialog open over the grid: the add-secret and import dialogs (empty, with a preview, and asking
 * before what was pasted is thrown away) and a confirmation, each checked by axe and closed again before the next
 * opens.
 */
const dialogs = async (page: Page, width: number) => {
  const closed = async (dialog: Locator) => {
    await dialog.getByRole("button", { name: "Close" }).click()
    await dialog.waitFor({ state: "detached" })
  }
  const dialog = page.getByRole("dialog")
  await closed(dialog)
  await page.getByRole("button", { name: "Add secret" }).click()
  await page.getByRole("dialog", { name: "Add a secret" }).waitFor()
  await settled(page)
  await expectAccessible(page, `add secret at ${width} px`)
  await closed(dialog)
  await page.getByRole("button", { name: "Import…" }).click()
  const importing = page.getByRole("dialog", { name: "Import secrets" })
  await importing.waitFor()
  await settled(page)
  await expectAccessible(page, `import at ${width} px`)
  await importing.getByLabel(/Or paste it here/).fill("DATABASE_URL=changed\nNEW_ONE=new\nbad key=invalid")
  await importing.getByRole("button", { name: "Preview" }).click()
  await importing.getByText(/new, .* changed, .* unchanged/).waitFor()
  await settled(page)
  await expectAccessible(page, `import preview at ${width} px`)
  // What was pasted is not imported: closing asks first, and the question is checked too.
  await importing.getByRole("button", { name: "Close" }).click()
  await importing.getByRole("alert").filter({ hasText: "not imported yet" }).waitFor()
  await expectAccessible(page, `import close guard at ${width} px`)
  await importing.getByRole("button", { name: "Discard and close" }).click()
  await importing.waitFor({ state: "detached" })
  await page.goto(`${served.base}/api-keys`)
  await page.getByRole("button", { name: "Delete ci-deploy" }).click()
  const confirm = page.getByRole("dialog", { name: "Delete ci-deploy?" })
  await confirm.waitFor()
  await settled(page)
  await expectAccessible(page, `confirm at ${width} px`)
  await confirm.getByRole("button", { name: "Cancel" }).click()
  await confirm.waitFor({ state: "detached" })
}

describe("keyboard", () => {
  it("keeps the focus in the page's content when what held it goes (a deleted row, a page change)", async () => {
    const email = `rescue-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Rescue ${Date.now()}`)
    await api.call("POST", `/api/projects/${slug}/environments`, { name: "gone-soon" })
    await api.call("POST", `/api/projects/${slug}/environments`, { name: "last-one" })
    const page = await browser.open(`${served.base}/sign-in`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/projects`)
    const focusedId = () => page.evaluate(() => document.activeElement?.id ?? document.activeElement?.tagName)

    // Creating a project opens its page: the form that held the focus is gone, and the focus is on the new page's
    // heading once it has loaded (`pageFocus.ts`).
    const name = `Rescued ${Date.now()}`
    await page.getByLabel("Project name").fill(name)
    await page.keyboard.press("Enter")
    await page.getByRole("button", { name: "Add secret" }).waitFor()
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent), POLL).toBe(name)

    // Deleting an environment takes its row, and the Delete button the dialog would give the focus back to: the
    // focus goes to the Delete button of the row now in its place, not to the top of the main area.
    await page.goto(`${served.base}/projects/${slug}/environments`)
    const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"))
    const deleteWithKeyboard = async (name: string) => {
      await page.getByRole("button", { name: `Delete environment ${name}` }).focus()
      await page.keyboard.press("Enter")
      const dialog = page.getByRole("dialog", { name: `Delete ${name}?` })
      await dialog.waitFor()
      // The dialog opens on the field the deletion waits for, so the name is typed straight away.
      await page.keyboard.type(name)
      await page.keyboard.press("Enter")
      await dialog.waitFor({ state: "detached" })
      await page.getByRole("row", { name: new RegExp(name) }).waitFor({ state: "detached" })
    }
    await deleteWithKeyboard("gone-soon")
    await expect.poll(focusedName, POLL).toBe("Delete environment last-one")
    // The last row's goes to the one before it.
    await deleteWithKeyboard("last-one")
    await expect.poll(focusedName, POLL).toBe("Delete environment production")
    expect(await focusedId()).not.toBe("main")
  })

  it("gives the focus of a deleted API key's Delete to the next key's, the one before, then the list's heading", async () => {
    const email = `rescue-keys-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Rescue keys ${Date.now()}`)
    for (const name of ["first", "second", "third"])
      await api.call("POST", "/api/api-keys", { name, projectSlug: slug, scope: "read" })
    const page = await browser.open(`${served.base}/sign-in?returnTo=%2Fapi-keys`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/api-keys`)
    const table = page.getByRole("table", { name: "API keys" })
    await table.waitFor()
    const order = await table.locator("tbody th").allTextContents()
    expect(order.length).toBe(3)
    const focused = () => focusedElement(page)
    const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? "")
    const deleteWithKeyboard = async (name: string) => {
      await page.getByRole("button", { name: new RegExp(`^Delete ${name} `) }).focus()
      await page.keyboard.press("Enter")
      const dialog = page.getByRole("dialog", { name: `Delete ${name}?` })
      await dialog.getByRole("button", { name: "Delete key" }).focus()
      await page.keyboard.press("Enter")
      await dialog.waitFor({ state: "detached" })
      await table.getByRole("rowheader", { name, exact: true }).waitFor({ state: "detached" })
    }
    const [top, middle, bottom] = order as [string, string, string]
    // The middle row's: the next row's Delete.
    await deleteWithKeyboard(middle)
    await expect.poll(focusedName, POLL).toMatch(new RegExp(`^Delete ${bottom} `))
    // The last row's: the one before.
    await deleteWithKeyboard(bottom)
    await expect.poll(focusedName, POLL).toMatch(new RegExp(`^Delete ${top} `))
    // The only one left: the list is gone, and the focus is on its heading (no stop for Tab).
    await deleteWithKeyboard(top)
    await page.getByText("No API keys.").waitFor()
    await expect.poll(focused, POLL).toBe("H1 -1 API keys")
    await browser.screenshot(page, "secrets-api-keys-last-deleted-1440")
  })

  it("moves the focus to the new page's heading on a page change, by link, tab, Back or Forward", async () => {
    const email = `heading-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const name = `Headed ${Date.now()}`
    const slug = await seedProject(api, name)
    const page = await browser.open(`${served.base}/sign-in`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/projects`)
    await page.getByRole("link", { name }).waitFor()
    const focused = () => focusedElement(page)
    // A header link followed from the keyboard: the heading of the page it opened, focusable but no Tab stop.
    const main = page.getByRole("navigation", { name: "Main" })
    await main.getByRole("link", { name: "API keys" }).focus()
    await page.keyboard.press("Enter")
    await expect.poll(focused, POLL).toBe("H1 -1 API keys")
    // A page whose heading comes after it loads (a project's): the heading, once there.
    await main.getByRole("link", { name: "Projects" }).click()
    await expect.poll(focused, POLL).toBe("H1 -1 Projects")
    await page.getByRole("link", { name }).click()
    await expect.poll(focused, POLL).toBe(`H1 -1 ${name}`)
    // A project's tab is another page too.
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "People" }).click()
    await page.waitForURL(`${served.base}/projects/${slug}/people`)
    await page.getByRole("heading", { name: "Members" }).waitFor()
    await expect.poll(focused, POLL).toBe(`H1 -1 ${name}`)
    // Back and Forward.
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "People" }).focus()
    await page.goBack()
    await page.waitForURL(`${served.base}/projects/${slug}`)
    await expect.poll(focused, POLL).toBe(`H1 -1 ${name}`)
    await page.goBack()
    await expect.poll(focused, POLL).toBe("H1 -1 Projects")
    await page.goForward()
    await expect.poll(focused, POLL).toBe(`H1 -1 ${name}`)
    // Tab goes on from the heading into the page's content, not back to the header.
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.querySelector("main")?.contains(document.activeElement) ?? false)).toBe(
      true,
    )
  })

  it("opens a value shown once (a new API key, an invite link) on its Copy button, so Enter copies it", async () => {
    const email = `shown-once-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Shown once ${Date.now()}`)
    const page = await browser.open(`${served.base}/sign-in?returnTo=%2Fapi-keys`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/api-keys`)
    const focusedName = () =>
      page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent)

    // Sent from the keyboard, as a person who goes on pressing Enter would: the dialog opened on its Close button,
    // and the next Enter threw the key away unseen.
    await page.getByLabel("Key name").fill("enter-key")
    await page.getByLabel("Key name").press("Enter")
    const key = page.getByRole("dialog", { name: "API key enter-key created" })
    await key.getByLabel("API key enter-key value").waitFor()
    await expect.poll(focusedName, POLL).toBe("Copy the api key enter-key")
    await page.keyboard.press("Enter")
    await page.getByText("Copied to the clipboard").waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      await key.getByLabel("API key enter-key value").textContent(),
    )
    expect(await key.isVisible()).toBe(true)

    await page.goto(`${served.base}/projects/${slug}/people`)
    await page.getByRole("button", { name: "Create invite link" }).click()
    await page.getByRole("dialog", { name: "Invite link created" }).getByLabel("Invite link value").waitFor()
    await expect.poll(focusedName, POLL).toBe("Copy the invite link")
  })

  it("creates an API key, copies it and deletes it with the keyboard alone", async () => {
    const email = `keys-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    await seedProject(api, `Keyboard ${Date.now()}`)
    const page = await browser.open(`${served.base}/sign-in?returnTo=%2Fapi-keys`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}/api-keys`)
    await page.reload()
    await page.getByLabel("Key name").waitFor()
    // The skip link is the first stop and moves focus to the content.
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content")
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main")

    // From the content, Tab reaches the form's fields in order.
    const focusedLabel = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLInputElement | null
        return element?.labels?.[0]?.textContent ?? element?.getAttribute("aria-label") ?? element?.textContent
      })
    for (let stop = 0; stop < 10 && (await focusedLabel()) !== "Key name"; stop++) await page.keyboard.press("Tab")
    expect(await focusedLabel()).toBe("Key name")
    await page.keyboard.type("keyboard-key")
    await page.keyboard.press("Tab")
    expect(await focusedLabel()).toBe("Project")
    await page.keyboard.press("Tab")
    expect(await focusedLabel()).toBe("Scope")
    await page.keyboard.press("ArrowDown")
    await page.keyboard.press("Tab")
    expect(await focusedLabel()).toBe("Expires in days")
    await page.keyboard.type("7")
    await page.keyboard.press("Enter")
    const value = page.getByLabel("API key keyboard-key value")
    await value.waitFor()
    expect(
      await page
        .getByRole("row", { name: /^keyboard-key / })
        .locator("td")
        .nth(1)
        .textContent(),
    ).toBe("write")

    await page.getByRole("button", { name: "Copy the api key keyboard-key" }).focus()
    await page.keyboard.press("Enter")
    await page.getByText("Copied to the clipboard").waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await value.textContent())
    // Copied four times over: three toasts at most, only the newest on a phone, and none catches a tap.
    for (let again = 0; again < 3; again++) await page.keyboard.press("Enter")
    const toasts = page.locator(".toast")
    await expect.poll(() => toasts.count(), POLL).toBe(3)
    // A tap where a toast shows reaches what lies under it.
    const under = await toasts.last().evaluate((toast) => {
      const box = toast.getBoundingClientRect()
      return document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)?.closest(".toasts") ?? null
    })
    expect(under).toBeNull()
    await page.setViewportSize({ width: 375, height: 900 })
    expect(await toasts.evaluateAll((all) => all.filter((toast) => toast.checkVisibility()).length)).toBe(1)
    await page.setViewportSize({ width: 1440, height: 900 })
    // The value's dialog closes from the keyboard too (it was copied: Escape asks nothing).
    await page.keyboard.press("Escape")
    await value.waitFor({ state: "detached" })

    await page.getByRole("button", { name: "Delete keyboard-key" }).focus()
    await page.keyboard.press("Enter")
    const dialog = page.getByRole("dialog", { name: "Delete keyboard-key?" })
    await dialog.waitFor()
    // Escape closes without deleting; focus stays inside an open dialog.
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "detached" })
    await page.getByRole("button", { name: "Delete keyboard-key" }).focus()
    await page.keyboard.press("Enter")
    await dialog.waitFor()
    expect(await dialog.evaluate((element) => element.contains(document.activeElement))).toBe(true)
    await dialog.getByRole("button", { name: "Delete key" }).focus()
    await page.keyboard.press("Enter")
    await page.getByText("No API keys.").waitFor()
  })
})

describe("announcements", () => {
  it("reads out the toasts said while a dialog is open, which leaves the page's own region inert", async () => {
    const email = `toasts-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Toasts ${Date.now()}`, { development: { API_URL: "https://one" } })
    const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(`/projects/${slug}`)}`)
    await signInPage(page, email)
    await page.getByRole("button", { name: "API_URL" }).click()
    const dialog = page.getByRole("dialog", { name: "API_URL" })
    await dialog.getByRole("button", { name: "Reveal API_URL in development" }).click()
    await dialog.getByRole("button", { name: "Copy API_URL in development" }).click()
    await page.getByText("Copied to the clipboard").first().waitFor()
    await expect.poll(() => liveTexts(page), POLL).toContain("Copied to the clipboard")
    // Saved from the dialog, which stays open.
    await dialog.getByRole("button", { name: "Edit API_URL in development" }).click()
    await dialog.getByLabel("New value of API_URL in development").fill("https://two")
    await dialog.getByRole("button", { name: "Save", exact: true }).click()
    await page.getByText("Saved API_URL in development (version 2)").first().waitFor()
    await expect.poll(() => liveTexts(page), POLL).toContain("Saved API_URL in development (version 2)")
    await browser.screenshot(page, "secrets-toast-over-dialog")
    // Said in the dialog, it goes with it: the page's region does not read it out a second time.
    await page.keyboard.press("Escape")
    await dialog.waitFor({ state: "detached" })
    expect(await page.getByText("Saved API_URL in development (version 2)").count()).toBe(0)
    // A toast said as its dialog closes is the page's to read out.
    await page.getByRole("button", { name: "Add secret" }).click()
    const add = page.getByRole("dialog", { name: "Add a secret" })
    await add.getByLabel("Key").fill("NEW_KEY")
    await add.getByRole("button", { name: "Save secret" }).click()
    await add.waitFor({ state: "detached" })
    await expect.poll(() => liveTexts(page), POLL).toContain("Added NEW_KEY to development")
  })
})

describe("contrast", () => {
  it("draws the edges of fields and secondary buttons, and the focus ring, at 3:1 at least in both schemes", async () => {
    const email = `contrast-${Date.now()}@example.com`
    const api = await apiAs(served.base, email)
    const slug = await seedProject(api, `Contrast ${Date.now()}`)
    const path = `/projects/${slug}/audit`
    const page = await browser.open(`${served.base}/sign-in?returnTo=${encodeURIComponent(path)}`)
    await signInPage(page, email)
    await page.waitForURL(`${served.base}${path}`)
    // The filter bar: text fields, selects and the secondary Filter button.
    await page.getByRole("button", { name: "Filter", exact: true }).waitFor()
    await expectControlEdgesVisible(page, (colorScheme) => browser.screenshot(page, `secrets-contrast-${colorScheme}`))
  })
})
