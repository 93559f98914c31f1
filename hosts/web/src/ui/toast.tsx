/**
 * Toasts: short confirmations of what just happened ("Saved API_URL in production"), announced politely to
 * screen readers. Refusals are not toasts: they appear where the person acted (`Alert`).
 *
 * They sit over the page's corner, so a few quick saves must not bury it: at most `MAX_SHOWN` at once (the newest;
 * on a phone only the newest, `styles.css`), and a click or tap goes through them to what lies under.
 *
 * An open modal dialog makes the rest of the page inert, and Chromium leaves inert content out of what a screen
 * reader hears, the page's live region with it: "Copied to the clipboard" or a value saved from the secret's
 * dialog went unheard. So each `Dialog` holds a region of its own (`DialogToasts`), which shows, over its backdrop,
 * the toasts said while it is open, and the page's region shows the others; each toast is in one region only, and
 * one a dialog showed is not shown again by the page's when the dialog closes (it would be read out twice).
 */
import { useEffect, useLayoutEffect, useState } from "preact/hooks"

interface Toast {
  readonly id: number
  readonly text: string
}

let next = 0
let toasts: ReadonlyArray<Toast> = []
const listeners = new Set<() => void>()
const publish = () => {
  for (const listener of listeners) listener()
}

/** The regions of the open dialogs, the innermost last, each with the newest toast's number when it opened. */
let dialogRegions: ReadonlyArray<{ readonly since: number }> = []
/** The toasts a dialog's region has shown. */
const shownInDialog = new Set<number>()

/** The region of an open dialog a toast is said in: the innermost one opened before it. */
const dialogRegionOf = (id: number) => dialogRegions.findLast((region) => region.since < id)

const MAX_SHOWN = 3

const dismiss = (id: number) => {
  toasts = toasts.filter((item) => item.id !== id)
  shownInDialog.delete(id)
  publish()
}

export const toast = (text: string): void => {
  const id = ++next
  toasts = [...toasts, { id, text }].slice(-MAX_SHOWN)
  publish()
  setTimeout(() => dismiss(id), 4000)
}

const useToasts = () => {
  const [, setTick] = useState(0)
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1)
    listeners.add(listener)
    return () => listeners.delete(listener)
  }, [])
}

const Region = ({ shown }: { readonly shown: ReadonlyArray<Toast> }) => (
  <div class="toasts" role="status" aria-live="polite">
    {shown.map((item) => (
      <div class="toast" key={item.id}>
        {item.text}
      </div>
    ))}
  </div>
)

/** The page's region: every toast but those an open dialog's region says, or has said. */
export const Toasts = () => {
  useToasts()
  return (
    <Region shown={toasts.filter((item) => !shownInDialog.has(item.id) && dialogRegionOf(item.id) === undefined)} />
  )
}

/** An open dialog's region (`Dialog`): the toasts said since it opened, and not in a dialog opened over it. */
export const DialogToasts = () => {
  useToasts()
  const [region] = useState(() => ({ since: next }))
  useLayoutEffect(() => {
    dialogRegions = [...dialogRegions, region]
    publish()
    return () => {
      dialogRegions = dialogRegions.filter((item) => item !== region)
      publish()
    }
  }, [])
  const shown = toasts.filter((item) => dialogRegionOf(item.id) === region)
  // Marked as drawn: the page's region leaves them out once this dialog has closed too.
  for (const item of shown) shownInDialog.add(item.id)
  return <Region shown={shown} />
}
