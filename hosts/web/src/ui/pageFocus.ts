/**
 * Where the keyboard focus goes when the person moves to another page (a header link, a tab, Back or Forward): to
 * the new page's heading, so a screen reader says which page this is and Tab carries on from the top of its
 * content. Otherwise the focus stays on the link that was followed, or falls to the page's body, and nothing tells
 * a person who cannot see the page that it changed. The heading gets `tabindex="-1"`: focusable from here, but no
 * stop for Tab.
 */

const headingIn = (main: HTMLElement) => main.querySelector<HTMLElement>("h1")

const focusHeading = (heading: HTMLElement) => {
  heading.tabIndex = -1
  heading.focus({ preventScroll: true })
}

/**
 * Moves the focus to `main`'s `<h1>`, or, while the page is still loading and has none, to `main` itself until the
 * heading comes (if the focus is still there then: a person who has moved on keeps their place). Returns what stops
 * waiting for the heading (the next page change).
 */
export const focusNewPage = (main: HTMLElement): (() => void) => {
  // Behind an open modal dialog the main area is inert; the dialog keeps its own focus.
  if (document.querySelector("dialog[open]") !== null) return () => undefined
  const heading = headingIn(main)
  if (heading !== null) {
    focusHeading(heading)
    return () => undefined
  }
  main.focus({ preventScroll: true })
  const waiting = new MutationObserver(() => {
    const found = headingIn(main)
    if (document.activeElement === main && found === null) return
    stop()
    if (document.activeElement === main && found !== null) focusHeading(found)
  })
  const stop = () => waiting.disconnect()
  waiting.observe(main, { childList: true, subtree: true })
  return stop
}
