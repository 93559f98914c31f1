/**
 * Where the keyboard focus goes when the element holding it leaves the page: a deleted row's button, a form a
 * page change took away, a dialog closing over a button that is gone or disabled. The browser would drop the
 * focus to the page's body, and the next Tab would start again from the top of the page; a screen reader would
 * say nothing. Instead:
 * - a row's control (a table row's, a list item's) that went with its row, deleted (an API key, a member, an
 *   environment; from its own button, or from the confirmation that button opened), gives the focus to its
 *   neighbour: the same control (by its words: Delete, Remove, Revoke) in the row now in its place, else in the
 *   nearest row after it that has one, else before it; in a list left with no such control, to the list's heading
 *   (the last heading before it on the page, made focusable with `tabindex="-1"`, no stop for Tab);
 * - anything else, or where none of these is left, to the main area, so reading and Tab carry on in the page's
 *   content.
 * Pages that know a better place (the row's next button, a preview) move the focus there themselves.
 */

/** Where a row's control was, kept while it has the focus (and while a dialog it opened is open). */
interface Place {
  readonly control: Element
  /** The row's parent: a `<tbody>`, a `<ul>` or `<ol>`. */
  readonly rows: Element
  readonly row: Element
  readonly before: Element | null
  readonly after: Element | null
  readonly index: number
  /** The control's own words ("Delete"), by which its counterpart in another row is found. */
  readonly words: string
  /** The heading the list comes under. */
  readonly heading: HTMLElement | null
}

const CONTROLS = 'button, a[href], input, select, textarea, [tabindex]:not([tabindex="-1"])'
const HEADINGS = "h1, h2, h3, h4, h5, h6"

const wordsOf = (element: Element) => element.textContent?.trim() ?? ""

/** The heading last before `element` in the page's main area. */
const headingBefore = (main: HTMLElement, element: Element): HTMLElement | null => {
  let found: HTMLElement | null = null
  for (const heading of main.querySelectorAll<HTMLElement>(HEADINGS)) {
    // A dialog's title is not the page's.
    if (heading.closest("dialog") !== null) continue
    if (heading.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) found = heading
    else break
  }
  return found
}

const placeOf = (main: HTMLElement, control: Element): Place | undefined => {
  const row = control.closest("tr, li")
  const rows = row?.parentElement
  if (row === null || row === undefined || rows === null || rows === undefined) return undefined
  if (!rows.matches("tbody, ul, ol") || !main.contains(rows)) return undefined
  return {
    control,
    rows,
    row,
    before: row.previousElementSibling,
    after: row.nextElementSibling,
    index: [...rows.children].indexOf(row),
    words: wordsOf(control),
    heading: headingBefore(main, rows),
  }
}

/** The control of `row` with `words`, if it can take the focus. */
const counterpart = (row: Element, words: string): HTMLElement | undefined =>
  [...row.querySelectorAll<HTMLElement>(CONTROLS)].find(
    (control) => wordsOf(control) === words && !control.matches(":disabled") && control.getClientRects().length > 0,
  )

/** Where the focus goes for a row's control that left with its row, or `undefined` when nothing is left of it. */
const neighbourOf = (place: Place): HTMLElement | undefined => {
  if (place.row.isConnected) return undefined
  if (place.rows.isConnected) {
    const rows = [...place.rows.children]
    // The row now in its place: the one that followed it, else the one after the one before it, else by number.
    const start =
      place.after?.parentElement === place.rows
        ? rows.indexOf(place.after)
        : place.before?.parentElement === place.rows
          ? rows.indexOf(place.before) + 1
          : Math.min(place.index, rows.length)
    const inOrder = [...rows.slice(start), ...rows.slice(0, start).reverse()]
    for (const row of inOrder) {
      const found = counterpart(row, place.words)
      if (found !== undefined) return found
    }
  }
  const heading = place.heading
  if (heading === null || !heading.isConnected) return undefined
  if (!heading.hasAttribute("tabindex")) heading.tabIndex = -1
  return heading
}

export const rescueFocus = (main: HTMLElement): (() => void) => {
  // The row's control that last held the focus outside a dialog: a dialog it opened (a confirmation) takes the
  // focus, and gives it back to that control, which may have left with its row meanwhile.
  let place: Place | undefined
  const onFocusIn = (event: FocusEvent) => {
    const target = event.target
    if (!(target instanceof Element) || target.closest("dialog") !== null) return
    place = placeOf(main, target)
  }
  const onFocusOut = (event: FocusEvent) => {
    // Focus moving to another element, or a click on nothing focusable while the element stays, is the person's.
    if (event.relatedTarget !== null) return
    const left = event.target
    // After the change that removed it has finished: a dialog's close gives the focus back to its opener first.
    setTimeout(() => {
      if (left instanceof Node && left.isConnected) return
      if (document.activeElement !== null && document.activeElement !== document.body) return
      // Behind an open modal dialog the main area is inert; the dialog keeps its own focus.
      if (document.querySelector("dialog[open]") !== null) return
      const neighbour = place !== undefined && !place.control.isConnected ? neighbourOf(place) : undefined
      ;(neighbour ?? main).focus({ preventScroll: neighbour === undefined })
    })
  }
  document.addEventListener("focusin", onFocusIn)
  document.addEventListener("focusout", onFocusOut)
  return () => {
    document.removeEventListener("focusin", onFocusIn)
    document.removeEventListener("focusout", onFocusOut)
  }
}
