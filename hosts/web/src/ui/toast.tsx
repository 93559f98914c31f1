/**
 * Toasts: short confirmations of what just happened ("Saved API_URL in production"), announced politely to
 * screen readers. Refusals are not toasts: they appear where the person acted (`Alert`).
 *
 * They sit over the page's corner, so a few quick saves must not bury it: at most `MAX_SHOWN` at once (the newest;
 * on a phone only the newest, `styles.css`), and a click or tap goes through them to what lies under.
 */
import { useEffect, useState } from "preact/hooks"

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

const MAX_SHOWN = 3

const dismiss = (id: number) => {
  toasts = toasts.filter((item) => item.id !== id)
  publish()
}

export const toast = (text: string): void => {
  const id = ++next
  toasts = [...toasts, { id, text }].slice(-MAX_SHOWN)
  publish()
  setTimeout(() => dismiss(id), 4000)
}

export const Toasts = () => {
  const [, setTick] = useState(0)
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1)
    listeners.add(listener)
    return () => listeners.delete(listener)
  }, [])
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.map((item) => (
        <div class="toast" key={item.id}>
          {item.text}
        </div>
      ))}
    </div>
  )
}
