/** Accessibility and layout checks shared by both apps' browser tests. */
import type { Locator, Page } from "playwright-core"
import { expect } from "vitest"
import { POLL } from "./browser.js"

/**
 * Waits until nothing on the page says it is loading (`aria-busy="true"`: the apps' "Loading …" lines and a
 * table between pages), so that every part fetched apart has arrived before the page is measured or pictured.
 * Call it after waiting for something the page's first render shows: before that, nothing is loading yet either.
 */
export const settled = (page: Page) =>
  expect
    .poll(() => page.locator('[aria-busy="true"]').count(), { ...POLL, message: "parts of the page still loading" })
    .toBe(0)

/**
 * Controls (buttons, links, fields) that a screen reader would announce without a name: no `aria-label`, no
 * `aria-labelledby`, no `<label>` and no text of their own.
 */
/** The focused element as `TAG tabindex text`: where the keyboard is, and whether Tab stops there. */
export const focusedElement = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement
    return `${element?.tagName} ${element?.getAttribute("tabindex")} ${element?.textContent}`
  })

export const unnamedControls = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll("button, a[href], input, select, textarea")]
      .filter((element) => {
        const labelled = element.getAttribute("aria-label") ?? element.getAttribute("aria-labelledby")
        const labels = (element as HTMLInputElement).labels
        const text = element.textContent?.trim() ?? ""
        return !labelled && (labels === null || labels === undefined || labels.length === 0) && text === ""
      })
      .map((element) => element.outerHTML.slice(0, 120)),
  )

/** How far the page scrolls sideways (0 when it fits the width; wide tables scroll in their own box). */
export const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)

/** The outermost elements that reach past the window's right edge, for the message of a failed width check. */
export const overflowing = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((element) => {
        const right = element.getBoundingClientRect().right
        const parent = element.parentElement?.getBoundingClientRect().right ?? 0
        return right > window.innerWidth + 1 && parent <= window.innerWidth + 1
      })
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}: ${element.outerHTML.slice(0, 80)}`),
  )

/**
 * The texts of `cells` that the layout broke over more than one line: a text node whose rectangles lie on two
 * lines or more. Short values (times, addresses, e-mails, line numbers) should read whole even beside a very long
 * one, which the table's sharing of its width can squeeze them for.
 */
export const brokenCells = (cells: Locator) =>
  cells.evaluateAll((elements) =>
    elements
      .filter((element) => {
        const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT)
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
          const range = document.createRange()
          range.selectNodeContents(node)
          if (new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1) return true
        }
        return false
      })
      .map((element) => element.textContent?.trim() ?? ""),
  )

/**
 * The text of `element` as the layout laid it out, one string per line: its characters grouped by the top of
 * each one's box. It says where a value was wrapped whatever the markup does to wrap it (`<wbr>`, spans, CSS).
 */
export const renderedLines = (element: Locator) =>
  element.evaluate((root) => {
    const lines: Array<{ top: number; text: string }> = []
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const text = node.textContent ?? ""
      for (let index = 0; index < text.length; index++) {
        const range = document.createRange()
        range.setStart(node, index)
        range.setEnd(node, index + 1)
        const box = range.getBoundingClientRect()
        if (box.width === 0 && box.height === 0) continue
        const top = Math.round(box.top)
        const last = lines[lines.length - 1]
        // A character more than half a line below the last one starts a new line.
        if (last === undefined || top - last.top > box.height / 2) lines.push({ top, text: text[index]! })
        else last.text += text[index]
      }
    }
    return lines.map((line) => line.text)
  })

/**
 * The name and description Chromium itself gives `element` in the accessibility tree a screen reader reads (not
 * Playwright's own computation), read over the DevTools protocol.
 */
export const chromiumAccessible = async (element: Locator) => {
  const page = element.page()
  const session = await page.context().newCDPSession(page)
  try {
    const mark = `probe-${Math.random().toString(36).slice(2)}`
    await element.evaluate((node, value) => node.setAttribute("data-ax-probe", value), mark)
    const found = await session.send("Runtime.evaluate", {
      expression: `document.querySelector('[data-ax-probe="${mark}"]')`,
    })
    await element.evaluate((node) => node.removeAttribute("data-ax-probe"))
    const { node } = await session.send("DOM.describeNode", { objectId: found.result.objectId! })
    const { nodes } = await session.send("Accessibility.getPartialAXTree", {
      backendNodeId: node.backendNodeId,
      fetchRelatives: false,
    })
    return {
      name: nodes[0]?.name?.value as string | undefined,
      description: nodes[0]?.description?.value as string | undefined,
    }
  } finally {
    await session.detach()
  }
}

/**
 * Checks that `field` is tied to the refusal `alert` shows: marked invalid, its `aria-describedby` naming the
 * alert's id, and Chromium reading the refusal as the field's description. Without it a screen reader hears the
 * refusal once and then finds the field it is about saying nothing of it.
 */
export const expectTiedToField = async (field: Locator, alert: Locator) => {
  expect(await field.getAttribute("aria-invalid")).toBe("true")
  const id = await alert.getAttribute("id")
  expect(id, "the refusal has no id for the field to name").not.toBeNull()
  expect((await field.getAttribute("aria-describedby"))?.split(/\s+/) ?? []).toContain(id)
  expect((await chromiumAccessible(field)).description).toContain((await alert.textContent())!.trim())
}

/**
 * The texts of the page's live regions that Chromium puts in the accessibility tree a screen reader reads: a text
 * in a region left out of that tree (inert behind an open modal dialog) is never announced, and is not listed.
 */
export const liveTexts = async (page: Page) => {
  const session = await page.context().newCDPSession(page)
  try {
    const { nodes } = await session.send("Accessibility.getFullAXTree")
    const byId = new Map(nodes.map((node) => [node.nodeId, node]))
    const live = (node: (typeof nodes)[number]) =>
      node.properties?.some((property) => property.name === "live" && property.value.value !== "off") === true
    const inLiveRegion = (node: (typeof nodes)[number] | undefined): boolean =>
      node !== undefined && (live(node) || inLiveRegion(byId.get(node.parentId ?? "")))
    return nodes
      .filter((node) => !node.ignored && node.role?.value === "StaticText" && inLiveRegion(node))
      .map((node) => String(node.name?.value ?? ""))
  } finally {
    await session.detach()
  }
}

/**
 * Checks that `value` (a revealed secret, a credential shown once) is in no live region, neither one its markup
 * makes (`aria-live`, a `status`, `alert`, `log`, `marquee` or `timer` role, an `<output>`, which is a `status`) nor
 * one Chromium puts in the accessibility tree: a screen reader would read it aloud the moment it appears, to anyone
 * in earshot. It is read when the person moves to it.
 */
export const expectNotAnnounced = async (value: Locator) => {
  const region = await value.evaluate((element) => {
    const LIVE_ROLES = ["status", "alert", "log", "marquee", "timer"]
    for (let node: Element | null = element; node !== null; node = node.parentElement) {
      const live = node.getAttribute("aria-live")
      if (
        node.tagName === "OUTPUT" ||
        LIVE_ROLES.includes(node.getAttribute("role") ?? "") ||
        (live ?? "off") !== "off"
      )
        return node.outerHTML.slice(0, 160)
    }
    return null
  })
  expect(region, "the value is inside a live region").toBeNull()
  const text = (await value.textContent())!
  expect(text).not.toBe("")
  expect((await liveTexts(value.page())).filter((said) => said.includes(text))).toEqual([])
  // Still there for the person who moves to it.
  expect((await chromiumAccessible(value)).name).not.toBe("")
}

/**
 * Checks that `cell` shows `email` wrapped onto more than one line, and only where the apps' `EmailAddress` lets it
 * wrap: before the `@` after a separator of the name, after the `@`, in the domain only after a dot, and never with
 * the top-level domain alone on the last line. The address must be long enough to wrap at the page's width. Its
 * accessible name holds the address whole.
 */
export const expectEmailWrappedWell = async (cell: Locator, email: string) => {
  const lines = await renderedLines(cell)
  expect(lines.join(""), `the cell reads ${JSON.stringify(lines)}`).toBe(email)
  expect(lines.length, "the address was not long enough to wrap").toBeGreaterThan(1)
  const at = email.lastIndexOf("@")
  let end = 0
  for (const line of lines.slice(0, -1)) {
    end += line.length
    expect(line, `a line of ${JSON.stringify(lines)}`).toMatch(end <= at + 1 ? /[@.\-_+]$/ : /\.$/)
  }
  expect(lines.at(-1), `the last line of ${JSON.stringify(lines)}`).toContain(".")
  // Wrapped for the eye only: a screen reader hears the address whole, not "ada@ example.com".
  expect((await chromiumAccessible(cell)).name, "the cell's accessible name").toContain(email)
}

/** A colour as `#rrggbb`, `#rgb` or `rgb(r, g, b)` (what custom properties and computed styles give) as 0–255 channels. */
const channels = (colour: string): ReadonlyArray<number> => {
  const hex = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour.trim())
  if (hex !== null) return hex.slice(1).map((part) => Number.parseInt(part, 16))
  // The built stylesheet writes #ffffff as #fff.
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(colour.trim())
  if (short !== null) return short.slice(1).map((part) => Number.parseInt(part + part, 16))
  const rgb = /^rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(colour.trim())
  if (rgb === null) throw new Error(`not a colour this check reads: ${colour}`)
  return rgb.slice(1).map(Number)
}

/** WCAG 2.x relative luminance. */
const luminance = (colour: string) => {
  const [r, g, b] = channels(colour).map((value) => {
    const c = value / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  })
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
}

/** WCAG 2.x contrast ratio of two opaque colours, from 1 to 21. */
export const contrastRatio = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (light! + 0.05) / (dark! + 0.05)
}

/**
 * What shows where a control is (WCAG 1.4.11): the edges of the page's first text field, select and secondary
 * button, and the focus ring of its first text field, each with its contrast against the page's background and a
 * card's, in the colour scheme the page is shown in. A part the page lacks is left out.
 */
export const controlEdges = async (page: Page) => {
  const field = page.locator('main input:not([type="checkbox"]):not([type="radio"]), main textarea').first()
  await field.focus()
  const found = await page.evaluate(() => {
    const root = getComputedStyle(document.documentElement)
    const edge = (selector: string) => {
      const element = document.querySelector(selector)
      return element === null ? undefined : getComputedStyle(element).borderTopColor
    }
    const focused = document.activeElement === null ? undefined : getComputedStyle(document.activeElement)
    return {
      backgrounds: { page: root.getPropertyValue("--bg"), card: root.getPropertyValue("--surface") },
      parts: {
        "text field border": edge('main input:not([type="checkbox"]):not([type="radio"]), main textarea'),
        "select border": edge("main select"),
        "secondary button border": edge(".button:not(.primary):not(.ghost):not(.danger)"),
        "focus ring": focused?.outlineStyle === "none" ? undefined : focused?.outlineColor,
      },
    }
  })
  await field.blur()
  return Object.entries(found.parts).flatMap(([part, colour]) =>
    colour === undefined
      ? []
      : Object.entries(found.backgrounds).map(([against, background]) => ({
          part,
          against,
          ratio: Math.round(contrastRatio(colour, background) * 100) / 100,
        })),
  )
}

/**
 * In the light scheme and the dark one: all four parts of `controlEdges` on the page, each at 3:1 at least against
 * both backgrounds. `picture` is called per scheme with the focus ring on the first field, for a screenshot.
 */
export const expectControlEdgesVisible = async (
  page: Page,
  picture: (colorScheme: "light" | "dark") => Promise<unknown>,
) => {
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme })
    const edges = await controlEdges(page)
    expect(new Set(edges.map((edge) => edge.part)).size, colorScheme).toBe(4)
    await page.locator("main input").first().focus()
    await picture(colorScheme)
    expect(
      edges.filter((edge) => edge.ratio < 3),
      colorScheme,
    ).toEqual([])
  }
}
