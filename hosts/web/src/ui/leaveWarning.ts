/**
 * Closing or reloading the page, or leaving it for another site, while it holds what that would lose (the Schemas
 * editor's unsaved text, a dialog's typed secret value or a credential not yet copied) asks first: the browser's
 * own prompt, through `beforeunload`. Moves inside the app are the page's own to handle.
 */
import { useEffect } from "preact/hooks"

/** While `dirty`, closing or reloading the page asks first (the browser's own prompt). */
export const useLeaveWarning = (dirty: boolean): void => {
  useEffect(() => {
    if (!dirty) return
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault()
      // Older browsers prompt only when a return value is set.
      event.returnValue = ""
    }
    addEventListener("beforeunload", warn)
    return () => removeEventListener("beforeunload", warn)
  }, [dirty])
}
