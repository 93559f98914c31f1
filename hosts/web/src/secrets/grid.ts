/**
 * The secrets grid's model (issue 12 §3): one row per key, one cell per environment, built from each
 * environment's key list (no values: reading a value is audited, so it happens only on request).
 */
import type { SecretListItem } from "../api/secrets.js"

export interface GridRow {
  readonly key: string
  /** One per environment, in the environments' order; `undefined` where the key is missing. */
  readonly cells: ReadonlyArray<SecretListItem | undefined>
}

/** The rows of `lists` (one key list per environment), sorted by key. */
export const buildRows = (lists: ReadonlyArray<ReadonlyArray<SecretListItem>>): ReadonlyArray<GridRow> => {
  const byKey = new Map<string, Array<SecretListItem | undefined>>()
  lists.forEach((list, index) => {
    for (const item of list) {
      let cells = byKey.get(item.key)
      if (cells === undefined) {
        cells = new Array(lists.length).fill(undefined)
        byKey.set(item.key, cells)
      }
      cells[index] = item
    }
  })
  return [...byKey.keys()].sort().map((key) => ({ key, cells: byKey.get(key)! }))
}

/** The rows whose key contains `text` (any case) and, when `missingIn` is an index, that lack that environment. */
export const filterRows = (
  rows: ReadonlyArray<GridRow>,
  text: string,
  missingIn: number | undefined,
): ReadonlyArray<GridRow> => {
  const needle = text.trim().toLowerCase()
  if (needle === "" && missingIn === undefined) return rows
  return rows.filter(
    (row) =>
      (needle === "" || row.key.toLowerCase().includes(needle)) &&
      (missingIn === undefined || row.cells[missingIn] === undefined),
  )
}

/** A value revealed on request, with the version it is the value of. */
export interface RevealedValue {
  readonly value: string
  readonly version: number
  /** The secret's id, when known (a read says it, a save does not): a key deleted and added again has a new one. */
  readonly id?: string
}

/**
 * A revealed value as the page keeps it. `before` is the count of list loads started when it was revealed (or
 * saved): a list from a later load is the service's word on which version is there, as with `Written`.
 */
export interface KeptValue extends RevealedValue {
  readonly before: number
}

/** Values revealed on a page, by `<environment>\n<key>`; only ever filled by a reveal the person asked for. */
export type Revealed = ReadonlyMap<string, KeptValue>

export const revealedKey = (environment: string, key: string) => `${environment}\n${key}`

/**
 * The value revealed for `item` in `environment` (as listed by list load number `load`), when it is the value of
 * the version the list now shows: once the list reloads with a newer version (saved by someone else), the older
 * value is hidden rather than shown under the new version's label, and copied or edited as if it were current. A
 * value newer than a list loaded before it (read here, the list not reloaded yet) is shown: hiding it until the
 * list catches up would draw it, drop it and draw it again, moving the dialog under the person's pointer. A list
 * loaded after it that shows an older version, or the same version of another secret (deleted and added again
 * elsewhere: versions start again at 1), hides it: that value is not the key's now. An empty value is known from
 * the list itself, and shown without a read: there is nothing to reveal.
 */
export const revealedValue = (
  revealed: Revealed,
  environment: string,
  key: string,
  item: SecretListItem | undefined,
  load: number,
): string | undefined => {
  if (item === undefined) return undefined
  const found = revealed.get(revealedKey(environment, key))
  // A synthetic item (a key added here, the list not back yet) has no id to compare.
  const entry = found?.id === undefined || item.id === "" || found.id === item.id ? found : undefined
  if (entry !== undefined && entry.version > item.version && load <= entry.before) return entry.value
  if (item.empty) return ""
  return entry?.version === item.version ? entry.value : undefined
}

/**
 * A save or deletion made on this page, as the list will have it (`undefined`: deleted), until a list loaded after
 * it comes back. `before` is the count of list loads started when it was answered: a list from a later load is the
 * service's word and wins (it may hold a change made elsewhere since); one from that load or an earlier one may
 * predate the write. Without it, the dialog drew the key as it was (missing after an add, present after a deletion,
 * with Add value or Reveal and Delete under the pointer) until the list came back, then drew it again.
 */
export interface Written {
  readonly environment: string
  readonly key: string
  readonly item: SecretListItem | undefined
  readonly before: number
}

/** Writes made here, by `revealedKey(environment, key)`: the last one of each key counts. */
export type Writes = ReadonlyMap<string, Written>

/** `lists` (one per environment of `environments`, from list load number `load`) with the writes they may predate. */
export const withWrites = (
  lists: ReadonlyArray<ReadonlyArray<SecretListItem>>,
  environments: ReadonlyArray<string>,
  writes: Writes,
  load: number,
): ReadonlyArray<ReadonlyArray<SecretListItem>> => {
  const pending = [...writes.values()].filter((write) => load <= write.before)
  if (pending.length === 0) return lists
  return lists.map((list, index) => {
    const here = pending.filter((write) => write.environment === environments[index])
    if (here.length === 0) return list
    const keys = new Set(here.map((write) => write.key))
    return [
      ...list.filter((item) => !keys.has(item.key)),
      ...here.flatMap((write) => (write.item === undefined ? [] : [write.item])),
    ]
  })
}
