/**
 * Data-key rotation (`coffer keys rotate --data-keys`; core/secrets README "Data keys"): a project gets a fresh
 * data key version, and every value it stores (all environments, all history) is re-sealed under it as `csv2`,
 * which also upgrades `csv1` values to the format that binds the secret's id.
 *
 * Safe while the service runs, and never loses a value:
 * - the new version becomes current by compare-and-set (`addDataKey`); the old versions stay in the store, so a
 *   value not yet re-sealed, or sealed by a writer that read the project just before the rotation, still opens;
 * - each value is replaced only if it is still exactly the one that was opened (`replaceSealedValues`), in batches
 *   of `batchSize` per transaction, so readers and writers wait for no long transaction, and a value that changed
 *   meanwhile (another rotation re-sealed it) is left alone;
 * - a run that stops is resumed by the next: before making any key it marks every project it is asked to rotate
 *   with the version it starts from (`markDataKeyRotations`, which keeps a mark a stopped run left), and ends the
 *   marks only once it has gone through them all. A marked project whose key has moved past its mark was got to:
 *   the next run finishes it with that key instead of making yet another (and so does a project whose current
 *   version is above 1 while values remain under older ones). Versions are found by their header, so passes
 *   repeat until one finds nothing to re-seal (a writer that read the project before the rotation may have sealed
 *   under the old key after the first pass went by).
 *
 * Old data key versions are kept, not deleted (see the README for why). A value that does not open is counted and
 * left as it is; nothing secret (no value, no key) is in the report.
 */
import { Cipher, type StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { ProjectNotFound } from "../errors.js"
import { type DataKeyRecord, type SealedRow, SecretStore } from "../SecretStore.js"
import { openWith, type ProjectKey, sealValue } from "./sealing.js"

/** Values re-sealed per transaction. */
export const RESEAL_BATCH = 200
/** Passes over a project's values at most: the first does the work, later ones catch values sealed meanwhile. */
const MAX_PASSES = 5

export interface ProjectRotation {
  readonly projectId: string
  readonly slug: string
  /** The data key version the project's values are under now; undefined when the rotation could not start. */
  readonly dataKeyVersion: number | undefined
  /** Whether this run made that version; false when it resumed the version an unfinished run made. */
  readonly newKey: boolean
  /** Values re-sealed under it by this run. */
  readonly resealed: number
  /** Of those, values that were `csv1` (sealed before data keys had versions). */
  readonly upgraded: number
  /** Values that did not open, left as they were (they still need the key or master key they were sealed under). */
  readonly unreadable: number
  /** Why the project was not rotated, when it was not (its key changed meanwhile: run again). */
  readonly failed: string | undefined
}

export interface DataKeyRotationReport {
  readonly projects: ReadonlyArray<ProjectRotation>
}

type Services = SecretStore | Cipher.Cipher

/** One pass over the values not under `project`'s current version; counts what it did. */
const resealPass = Effect.fnUntraced(function* (
  project: ProjectKey,
  dataKeyFor: (version: number) => Effect.Effect<string, Cipher.CipherError | StoreUnavailable, SecretStore>,
  batchSize: number,
) {
  const store = yield* SecretStore
  const except = Cipher.sealedPrefix(project.dataKeyVersion)
  let after: SealedRow | undefined
  let resealed = 0
  let upgraded = 0
  let unreadable = 0
  while (true) {
    const rows = yield* store.listSealedValues({ projectId: project.id, except, after, limit: batchSize })
    if (rows.length === 0) break
    after = rows.at(-1)
    const replacements = []
    let legacy = 0
    for (const row of rows) {
      const next = yield* openWith(dataKeyFor, project.id, row, row.value).pipe(
        Effect.flatMap((plaintext) => sealValue(project, row, plaintext)),
        Effect.catchTag("CipherError", () => Effect.succeed(undefined)),
      )
      if (next === undefined) {
        unreadable++
        continue
      }
      if (Cipher.sealedHeader(row.value)?.format === Cipher.LEGACY_SEALED_FORMAT) legacy++
      replacements.push({ secretId: row.secretId, version: row.version, expected: row.value, next })
    }
    const replaced = yield* store.replaceSealedValues(replacements)
    resealed += replaced
    // Counted only when all were replaced: otherwise which ones were is unknown, and none is over-reported.
    if (replaced === replacements.length) upgraded += legacy
  }
  return { resealed, upgraded, unreadable }
})

/** Rotates one project's data key (or resumes a rotation) and re-seals its values. */
const rotateProject = Effect.fnUntraced(function* (
  current: DataKeyRecord,
  known: ReadonlyArray<DataKeyRecord>,
  batchSize: number,
  /** The version the rotation under way started from (a stopped run's mark, or this run's). */
  startedFrom: number | undefined,
) {
  const store = yield* SecretStore
  const cipher = yield* Cipher.Cipher
  const base = { projectId: current.projectId, slug: current.slug }
  const pending = yield* store.listSealedValues({
    projectId: current.projectId,
    except: Cipher.sealedPrefix(current.version),
    after: undefined,
    limit: 1,
  })
  const resume =
    (startedFrom !== undefined && current.version > startedFrom) || (current.version > 1 && pending.length > 0)
  let project: ProjectKey = { id: current.projectId, dataKey: current.dataKey, dataKeyVersion: current.version }
  if (!resume) {
    const dataKey = yield* cipher.newDataKey.pipe(Effect.orDie)
    const added = yield* store.addDataKey({ projectId: project.id, expectedVersion: project.dataKeyVersion, dataKey })
    if (!added) {
      const failed = "its data key changed while the rotation started (another rotation running?); run again"
      return { ...base, dataKeyVersion: undefined, newKey: false, resealed: 0, upgraded: 0, unreadable: 0, failed }
    }
    project = { id: project.id, dataKey, dataKeyVersion: project.dataKeyVersion + 1 }
  }
  // The wraps of older versions, read once per run instead of once per value.
  const wraps = new Map(known.map((key) => [key.version, key.dataKey]))
  wraps.set(project.dataKeyVersion, project.dataKey)
  const dataKeyFor = (version: number) => {
    const wrap = wraps.get(version)
    return wrap !== undefined
      ? Effect.succeed(wrap)
      : store.findDataKey(project.id, version).pipe(
          Effect.flatMap((found) => {
            if (found === undefined) {
              return Effect.fail(new Cipher.CipherError({ message: `the project has no data key version ${version}` }))
            }
            wraps.set(version, found)
            return Effect.succeed(found)
          }),
        )
  }
  const total = { resealed: 0, upgraded: 0, unreadable: 0 }
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const done = yield* resealPass(project, dataKeyFor, batchSize)
    total.resealed += done.resealed
    total.upgraded += done.upgraded
    total.unreadable = done.unreadable
    if (done.resealed === 0) break
  }
  // This process no longer needs the older keys unwrapped; the services drop theirs within `DATA_KEY_TTL_MS`.
  for (const [version, wrap] of wraps) if (version !== project.dataKeyVersion) yield* cipher.forget(wrap)
  const report: ProjectRotation = {
    ...base,
    dataKeyVersion: project.dataKeyVersion,
    newKey: !resume,
    ...total,
    failed: undefined,
  }
  return report
})

/**
 * Rotates the data key of the project with `slug`, or of every project, and re-seals their values; fails with
 * `ProjectNotFound` when no project has that slug.
 */
export const rotateProjectDataKeys = Effect.fn("Secrets.rotateProjectDataKeys")(function* (
  options: { readonly slug?: string | undefined; readonly batchSize?: number | undefined } = {},
): Effect.fn.Return<DataKeyRotationReport, ProjectNotFound | StoreUnavailable, Services> {
  const store = yield* SecretStore
  const keys = yield* store.listDataKeys
  const targets = keys.filter((key) => key.current && (options.slug === undefined || key.slug === options.slug))
  if (options.slug !== undefined && targets.length === 0) return yield* new ProjectNotFound()
  const marks = yield* store.markDataKeyRotations(
    targets.map((current) => ({ projectId: current.projectId, fromVersion: current.version })),
  )
  const projects = yield* Effect.forEach(targets, (current) =>
    rotateProject(
      current,
      keys.filter((key) => key.projectId === current.projectId),
      options.batchSize ?? RESEAL_BATCH,
      marks.get(current.projectId),
    ),
  )
  // Gone through: the marks end, but not where the key could not be made (another rotation moved it), so that
  // running again finishes that project with the key the other made. Values that did not open are counted, and
  // the run is over for them too: a run after this one is a new rotation.
  yield* store.endDataKeyRotations(
    projects.filter((project) => project.failed === undefined).map((project) => project.projectId),
  )
  return { projects }
})
