/**
 * The data-key part of the in-memory SecretStore (port rule 10): every version of each project's data key, and
 * the sealed values a data-key rotation re-seals. It works on the maps `MemorySecretStore` owns; like the rest of
 * that store, each method is one synchronous step, so each compare-and-set is atomic.
 */
import * as Effect from "effect/Effect"
import type {
  DataKeysPart,
  EnvironmentRecord,
  ProjectRecord,
  SealedRow,
  SealedVersion,
  SecretRecord,
  VersionRecord,
} from "../SecretStore.js"

/** A version as the memory store keeps it: what a read answers, and what a restore brought back. */
export type StoredVersion = SealedVersion & Pick<VersionRecord, "restoredFrom">

export interface MemoryState {
  readonly projects: Map<string, ProjectRecord>
  /** projectId → version → wrapped data key, for every version but the current one (which is on the project). */
  readonly olderDataKeys: Map<string, Map<number, string>>
  /** projectId → the version its data-key rotation under way started from. */
  readonly rotations: Map<string, number>
  /** secretId → versions, oldest first */
  readonly versions: Map<string, Array<StoredVersion>>
  readonly environmentsOf: (projectId: string) => ReadonlyArray<EnvironmentRecord>
  readonly secretsOf: (environmentId: string) => ReadonlyArray<SecretRecord>
}

const frozen = <A extends object>(value: A): A => Object.freeze({ ...value })

/** (secret id, version) order, the order pages of `listSealedValues` come in. */
const compareRows = (a: { secretId: string; version: number }, b: { secretId: string; version: number }) =>
  a.secretId < b.secretId ? -1 : a.secretId > b.secretId ? 1 : a.version - b.version

export const dataKeys = ({
  projects,
  olderDataKeys,
  rotations,
  versions,
  environmentsOf,
  secretsOf,
}: MemoryState): DataKeysPart => ({
  listDataKeys: Effect.sync(() =>
    [...projects.values()].flatMap((project) => [
      ...[...(olderDataKeys.get(project.id) ?? [])].map(([version, dataKey]) => ({
        projectId: project.id,
        slug: project.slug,
        version,
        dataKey,
        current: false,
      })),
      {
        projectId: project.id,
        slug: project.slug,
        version: project.dataKeyVersion,
        dataKey: project.dataKey,
        current: true,
      },
    ]),
  ),

  findDataKey: (projectId, version) =>
    Effect.sync(() => {
      const project = projects.get(projectId)
      if (project === undefined) return undefined
      return project.dataKeyVersion === version ? project.dataKey : olderDataKeys.get(projectId)?.get(version)
    }),

  replaceDataKey: ({ projectId, version, expected, next }) =>
    Effect.sync(() => {
      const project = projects.get(projectId)
      if (project === undefined) return false
      if (project.dataKeyVersion === version) {
        if (project.dataKey !== expected) return false
        projects.set(projectId, frozen({ ...project, dataKey: next }))
        return true
      }
      const older = olderDataKeys.get(projectId)
      if (older?.get(version) !== expected) return false
      older.set(version, next)
      return true
    }),

  addDataKey: ({ projectId, expectedVersion, dataKey }) =>
    Effect.sync(() => {
      const project = projects.get(projectId)
      if (project === undefined || project.dataKeyVersion !== expectedVersion) return false
      const older = olderDataKeys.get(projectId) ?? new Map<number, string>()
      older.set(project.dataKeyVersion, project.dataKey)
      olderDataKeys.set(projectId, older)
      projects.set(projectId, frozen({ ...project, dataKey, dataKeyVersion: expectedVersion + 1 }))
      return true
    }),

  markDataKeyRotations: (marks) =>
    Effect.sync(() => {
      const stored = new Map<string, number>()
      for (const { projectId, fromVersion } of marks) {
        if (!projects.has(projectId)) continue
        const kept = rotations.get(projectId) ?? fromVersion
        rotations.set(projectId, kept)
        stored.set(projectId, kept)
      }
      return stored
    }),

  endDataKeyRotations: (projectIds) =>
    Effect.sync(() => {
      for (const projectId of projectIds) rotations.delete(projectId)
    }),

  listSealedValues: ({ projectId, except, after, limit }) =>
    Effect.sync(() => {
      const rows: Array<SealedRow> = []
      for (const environment of environmentsOf(projectId)) {
        for (const secret of secretsOf(environment.id)) {
          for (const sealed of versions.get(secret.id) ?? []) {
            if (sealed.value.startsWith(except)) continue
            const row = {
              secretId: secret.id,
              environmentId: environment.id,
              key: secret.key,
              version: sealed.version,
              value: sealed.value,
            }
            if (after === undefined || compareRows(row, after) > 0) rows.push(row)
          }
        }
      }
      return rows.sort(compareRows).slice(0, limit)
    }),

  replaceSealedValues: (replacements) =>
    Effect.sync(() => {
      let replaced = 0
      for (const { secretId, version, expected, next } of replacements) {
        const history = versions.get(secretId)
        const index = history?.findIndex((sealed) => sealed.version === version) ?? -1
        if (history === undefined || index < 0 || history[index]!.value !== expected) continue
        history[index] = frozen({ ...history[index]!, value: next })
        replaced++
      }
      return replaced
    }),
})
