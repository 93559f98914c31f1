/**
 * axe-core's automated accessibility check (the WCAG 2.0 and 2.1 rules at levels A and AA) on the page as it
 * stands, for both apps' layout tests. axe's script comes from the `axe-core` package in node_modules: nothing is
 * fetched at run time.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Page } from "playwright-core"
import { expect } from "vitest"

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** The WCAG 2.0 and 2.1 success criteria at levels A and AA, as axe tags its rules. */
const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

/** The apps follow the system's colour scheme (`ui/styles.css`), so contrast is checked in both. */
const SCHEMES = ["light", "dark"] as const

/** What of axe's answer is reported: the rule, how bad, and each element it failed on. */
interface Violation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<unknown>; readonly html: string }>
}

export interface AxeOptions {
  /**
   * CSS selectors of elements (and what is inside them) axe leaves out. Each needs a comment where it is passed
   * saying why; an element is only left out when what is wrong with it is someone else's to fix.
   */
  readonly exclude?: ReadonlyArray<string>
}

const run = (page: Page, exclude: ReadonlyArray<ReadonlyArray<string>>) =>
  page.evaluate(
    async ({ exclude, tags }) => {
      const { axe } = window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<unknown> } }
      const results = (await axe.run(
        { include: [["html"]], exclude },
        { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] },
      )) as { violations: ReadonlyArray<Violation> }
      return results.violations.map(({ id, impact, help, nodes }) => ({
        id,
        impact,
        help,
        nodes: nodes.map(({ target, html }) => ({ target, html })),
      }))
    },
    { exclude, tags: WCAG_21_AA },
  )

/**
 * The violations axe finds on the page in the light and the dark colour scheme, one readable line per failing
 * element (`[scheme] rule (impact): help — target — html`), so that `expect(await axeViolations(page)).toEqual([])`
 * fails with the list. Call it once the page has settled: axe reads the page as it is at that moment. The page is
 * left in the colour scheme it was in.
 */
export const axeViolations = async (page: Page, options: AxeOptions = {}): Promise<ReadonlyArray<string>> => {
  // Evaluated through the DevTools protocol, so the page's content-security policy (no inline scripts) allows it.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE)
  const exclude = (options.exclude ?? []).map((selector) => [selector])
  const before = await page.evaluate(() => (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"))
  const found: Array<string> = []
  try {
    for (const scheme of SCHEMES) {
      // The styles follow at once: the apps' CSS has no transitions that axe could read half-way.
      await page.emulateMedia({ colorScheme: scheme })
      for (const { id, impact, help, nodes } of await run(page, exclude)) {
        for (const { target, html } of nodes) {
          const excerpt = html.replace(/\s+/g, " ").slice(0, 160)
          found.push(`[${scheme}] ${id} (${impact ?? "unknown impact"}): ${help} — ${target.join(" ")} — ${excerpt}`)
        }
      }
    }
  } finally {
    await page.emulateMedia({ colorScheme: before })
  }
  return found
}

/**
 * Fails the test with axe's violations on the page, `what` naming the page in the message. A soft expectation:
 * the test goes on, so that one run lists the violations of every page and dialog it visits, not only the first.
 */
export const expectAccessible = async (page: Page, what: string, options?: AxeOptions) =>
  expect.soft(await axeViolations(page, options), `axe: ${what}`).toEqual([])
