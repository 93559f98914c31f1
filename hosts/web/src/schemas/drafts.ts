/**
 * Unsaved editor text, per schema, kept in this tab's session storage until it is saved or discarded: switching
 * tabs, visiting another page of the app, or signing in again after the session ended (a full page load) does not
 * throw away what was typed (closing the page asks first: `ui/leaveWarning.ts`). Storage that refuses (a private
 * window's quota) only loses that convenience.
 */
const keyOf = (schema: string) => `coffer.draft:${schema}`

export const readDraft = (schema: string): string | undefined => {
  try {
    return sessionStorage.getItem(keyOf(schema)) ?? undefined
  } catch {
    return undefined
  }
}

/** Keeps `text` as the draft of `schema`, or forgets it (`undefined`). */
export const keepDraft = (schema: string, text: string | undefined): void => {
  try {
    if (text === undefined) sessionStorage.removeItem(keyOf(schema))
    else sessionStorage.setItem(keyOf(schema), text)
  } catch {
    // Not kept: the page still warns before it is closed.
  }
}
