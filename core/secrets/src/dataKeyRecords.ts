/**
 * The records of the SecretStore port's data-key part (rule 10 in `SecretStore.ts`): a version of a project's data
 * key, and a stored value with the row it is sealed for, as data-key rotation reads and re-seals them.
 */

/** One version of a project's data key (rule 10). */
export interface DataKeyRecord {
  readonly projectId: string
  readonly slug: string
  readonly version: number
  /** Wrapped by the master key. */
  readonly dataKey: string
  /** Whether it is the project's current version (the one that seals new values). */
  readonly current: boolean
}

/** A stored version's sealed value with the row it is bound to (what re-sealing it needs). */
export interface SealedRow {
  readonly secretId: string
  readonly environmentId: string
  readonly key: string
  readonly version: number
  readonly value: string
}

/** Where a page of `listSealedValues` resumes: after this (secret, version). */
export interface SealedRowCursor {
  readonly secretId: string
  readonly version: number
}
