/**
 * How a secret version's value is sealed and opened (DESIGN.md "Security decisions"; Cipher.ts for the formats).
 *
 * A value is sealed under its project's current data key, naming that key's version (`csv2.<version>.…`), with
 * associated data that binds it to its row: project, environment, the secret's own id, key and version
 * (`rowData`). The secret's id is what a deleted and re-created key does not share, so a ciphertext copied from
 * the old secret's history into the new one does not open. Values sealed before data keys had versions (`csv1`)
 * open with the associated data of their day (`legacyRowData`, no secret id) under version 1, until a data-key
 * rotation re-seals them.
 *
 * The current data key comes with the project every request reads, so the usual read costs no extra round trip;
 * an older version (or a newer one, made by a rotation after the project was read) is looked up in the store.
 */
import { Cipher, type StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type ProjectRecord, SecretStore } from "../SecretStore.js"

/** The row a version's value is bound to. */
export interface SealedAt {
  readonly environmentId: string
  readonly secretId: string
  readonly key: string
  readonly version: number
}

/** The associated data a `csv2` value is sealed with: it names the row the ciphertext belongs to. */
export const rowData = (projectId: string, at: SealedAt): string =>
  Cipher.associatedData([projectId, at.environmentId, at.secretId, at.key, String(at.version)])

/** The associated data of a `csv1` value, sealed before the secret's id was bound too. */
export const legacyRowData = (projectId: string, at: SealedAt): string =>
  Cipher.associatedData([projectId, at.environmentId, at.key, String(at.version)])

const cipherError = (message: string) => new Cipher.CipherError({ message })

/** What sealing needs of a project: its id and its current data key with that key's version. */
export type ProjectKey = Pick<ProjectRecord, "id" | "dataKey" | "dataKeyVersion">

/** The project's data key of this version: the current one as read with the project, any other from the store. */
export const dataKeyOf = (
  project: ProjectKey,
  version: number,
): Effect.Effect<string, Cipher.CipherError | StoreUnavailable, SecretStore> =>
  version === project.dataKeyVersion
    ? Effect.succeed(project.dataKey)
    : SecretStore.use((store) => store.findDataKey(project.id, version)).pipe(
        Effect.flatMap((dataKey) =>
          dataKey === undefined
            ? Effect.fail(cipherError(`the project has no data key version ${version}`))
            : Effect.succeed(dataKey),
        ),
      )

/**
 * Opens a stored value with the data key version its header names (found by `dataKeyFor`) and the associated data
 * of its format.
 */
export const openWith = <E, R>(
  dataKeyFor: (version: number) => Effect.Effect<string, E, R>,
  projectId: string,
  at: SealedAt,
  sealed: string,
): Effect.Effect<string, Cipher.CipherError | E, R | Cipher.Cipher> =>
  Effect.gen(function* () {
    const header = Cipher.sealedHeader(sealed)
    if (header === undefined) return yield* cipherError("the stored value is not a sealed value")
    const dataKey = yield* dataKeyFor(header.dataKeyVersion)
    const aad = header.format === Cipher.LEGACY_SEALED_FORMAT ? legacyRowData(projectId, at) : rowData(projectId, at)
    const cipher = yield* Cipher.Cipher
    return yield* cipher.open(dataKey, sealed, aad)
  })

/** Opens a stored value of the project (`openWith`, the data key from the project or the store). */
export const openValue = (
  project: ProjectKey,
  at: SealedAt,
  sealed: string,
): Effect.Effect<string, Cipher.CipherError | StoreUnavailable, SecretStore | Cipher.Cipher> =>
  openWith((version) => dataKeyOf(project, version), project.id, at, sealed)

/**
 * Opens many stored values of the project, in order (an export): one `Cipher.openAll` per data key version among
 * them, so the usual export, all under the current version, unwraps one key and runs one synchronous loop.
 */
export const openAllValues = (
  project: ProjectKey,
  rows: ReadonlyArray<SealedAt & { readonly value: string }>,
): Effect.Effect<Array<string>, Cipher.CipherError | StoreUnavailable, SecretStore | Cipher.Cipher> =>
  Effect.gen(function* () {
    // Each value's blob and place, by the data key version its header names (each header read once).
    const byVersion = new Map<number, { blobs: Array<Cipher.SealedBlob>; indexes: Array<number> }>()
    for (const [index, row] of rows.entries()) {
      const header = Cipher.sealedHeader(row.value)
      if (header === undefined) return yield* cipherError("the stored value is not a sealed value")
      const legacy = header.format === Cipher.LEGACY_SEALED_FORMAT
      const group = byVersion.get(header.dataKeyVersion) ?? { blobs: [], indexes: [] }
      group.blobs.push({
        sealed: row.value,
        associatedData: legacy ? legacyRowData(project.id, row) : rowData(project.id, row),
      })
      group.indexes.push(index)
      byVersion.set(header.dataKeyVersion, group)
    }
    const cipher = yield* Cipher.Cipher
    const values = new Array<string>(rows.length)
    for (const [version, { blobs, indexes }] of byVersion) {
      const opened = yield* cipher.openAll(yield* dataKeyOf(project, version), blobs)
      for (const [i, index] of indexes.entries()) values[index] = opened[i]!
    }
    return values
  })

/** Seals a value for its row under the project's current data key (as read with the project). */
export const sealValue = (
  project: ProjectKey,
  at: SealedAt,
  plaintext: string,
): Effect.Effect<string, Cipher.CipherError, Cipher.Cipher> =>
  Cipher.Cipher.use((cipher) =>
    cipher.seal(project.dataKey, plaintext, rowData(project.id, at), project.dataKeyVersion),
  )
