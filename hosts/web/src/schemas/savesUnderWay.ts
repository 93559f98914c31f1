/**
 * The saves of a schema still under way in this browser tab. A person may click another tab of the schema (Output,
 * History) while Save is busy; that page then reads the schema after the save has answered, not before it: read
 * before, it showed the old output beside "Saved …", and the editor, opened again, offered the saved text as an
 * unsaved change that another save called "someone else's" (`drafts.ts` keeps it; the save settles it there too).
 */
const underWay = new Map<string, Promise<void>>()

/** Registers `save` as under way for `schema` until it settles; returns it unchanged. */
export const whileSaving = <T>(schema: string, save: Promise<T>): Promise<T> => {
  const settled = save.then(
    () => undefined,
    () => undefined,
  )
  underWay.set(schema, settled)
  void settled.then(() => {
    // A later save of the same schema may have taken the place meanwhile: that one is still under way.
    if (underWay.get(schema) === settled) underWay.delete(schema)
  })
  return save
}

/** Resolves once no save of `schema` begun before this call is under way (at once when none is); never rejects. */
export const afterSaves = (schema: string): Promise<void> => underWay.get(schema) ?? Promise.resolve()
