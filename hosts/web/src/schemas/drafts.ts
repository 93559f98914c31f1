/**
 * Unsaved editor text, per schema, kept in this tab's session storage until it is saved or discarded: switching
 * tabs, visiting another page of the app, or signing in again after the session ended (a full page load) does not
 * throw away what was typed (closing the page asks first: `ui/leaveWarning.ts`). Storage that refuses (a private
 * window's quota) only loses that convenience.
 */
/**
 * Per person as well as per schema: a draft left by someone who signed out was offered to the next person signed in
 * in the tab as their own unsaved change, and saved under their name.
 */
const keyOf = (person: string, schema: string) => `coffer.draft:${person}:${schema}`

/**
 * Unsaved text and the content it was started from, as the service held it then (JSON, `null` for no schema), with
 * that content's revision: a draft taken up again after a reload or another tab must still notice a save made by
 * someone else meanwhile, which the content read afresh cannot show, and its save names that revision so that the
 * service refuses it if one landed.
 */
export interface Draft {
  readonly text: string
  readonly startedFrom: string
  /** Absent in drafts kept before revisions were: their save then relies on the content comparison alone. */
  readonly startedRevision?: number | undefined
}

const isDraft = (value: unknown): value is Draft =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Draft).text === "string" &&
  typeof (value as Draft).startedFrom === "string" &&
  ((value as Draft).startedRevision === undefined || Number.isSafeInteger((value as Draft).startedRevision))

export const readDraft = (person: string, schema: string): Draft | undefined => {
  try {
    const kept = sessionStorage.getItem(keyOf(person, schema))
    if (kept === null) return undefined
    const draft: unknown = JSON.parse(kept)
    return isDraft(draft) ? draft : undefined
  } catch {
    // Not readable (storage refused, or kept in an older form): the editor starts from what is saved.
    return undefined
  }
}

/** Keeps `draft` as `person`'s draft of `schema`, or forgets it (`undefined`). */
export const keepDraft = (person: string, schema: string, draft: Draft | undefined): void => {
  try {
    if (draft === undefined) sessionStorage.removeItem(keyOf(person, schema))
    else sessionStorage.setItem(keyOf(person, schema), JSON.stringify(draft))
  } catch {
    // Not kept: the page still warns before it is closed.
  }
}

/**
 * What a save of `savedText` (answered as `revision`, holding `content`) leaves kept: nothing when the draft is that
 * text; a draft typed on since starts from the saved revision. The save does it itself, since it may answer after
 * the person left the tab, whose own bookkeeping then no longer runs: the saved text was offered again as unsaved.
 */
export const draftSaved = (
  person: string,
  schema: string,
  savedText: string,
  content: unknown,
  revision: number,
): void => {
  const kept = readDraft(person, schema)
  if (kept === undefined) return
  keepDraft(
    person,
    schema,
    kept.text === savedText
      ? undefined
      : { text: kept.text, startedFrom: JSON.stringify(content), startedRevision: revision },
  )
}
