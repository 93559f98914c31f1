/**
 * Where the keyboard focus goes when the element holding it leaves the page: a deleted row's button, a form a
 * page change took away, a dialog closing over a button that is gone or disabled. The browser would drop the
 * focus to the page's body, and the next Tab would start again from the top of the page; a screen reader would
 * say nothing. Instead the focus goes to the main area, so reading and Tab carry on in the page's content.
 * Pages that know a better place (the row's next button, a preview) move the focus there themselves.
 */
export const rescueFocus = (main: HTMLElement): (() => void) => {
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
      main.focus({ preventScroll: true })
    })
  }
  document.addEventListener("focusout", onFocusOut)
  return () => document.removeEventListener("focusout", onFocusOut)
}
