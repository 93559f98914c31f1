/**
 * The SchemaStore port in process memory (the port's `layerMemory`, kept beside it so that the use-case tests of
 * this package need no adapter): for tests, embedding and single-process development. `@coffer/adapter-memory`
 * exports it as `MemorySchemaStore`. The rules live on the port and in the use cases; this module keeps rows.
 *
 * Transactions: the state is a value that writes replace rather than mutate in place. A transaction works on a
 * copy, found through a fiber-local reference (so every call made inside it, on any fiber it forks, sees and
 * changes the copy), and publishes the copy only when the effect succeeds. One semaphore orders every writer,
 * transactional or not, so a write outside a transaction can never be lost under one that commits after it.
 *
 * Stored JSON is copied on the way in and on the way out: a caller mutating an object it passed or received can
 * never change what is stored.
 */

import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import { type DependencyEdge, dependencyEdges } from "../domain/cascade.js"
import type { PlatformKind } from "../domain/platform.js"
import { sortVersions } from "../domain/version.js"
import {
  type AuditEntry,
  type PlatformData,
  type PlatformRecord,
  type Revision,
  SchemaStore,
  type StoredSchema,
  type StoredToken,
  type TokenRecord,
} from "../SchemaStore.js"

interface VersionState {
  readonly schema: Omit<StoredSchema, "platform" | "version"> | undefined
  /** The schema's dependency edges, parsed once when it is saved (`dependentsOf` scans them). */
  readonly edges: ReadonlyArray<DependencyEdge>
  readonly revisions: ReadonlyArray<Revision>
}

interface PlatformState {
  readonly kind: PlatformKind | undefined
  readonly versions: ReadonlyMap<string, VersionState>
}

interface State {
  readonly platforms: ReadonlyMap<string, PlatformState>
  readonly tokens: ReadonlyMap<string, StoredToken>
  readonly audit: ReadonlyArray<AuditEntry>
}

const emptyState: State = { platforms: new Map(), tokens: new Map(), audit: [] }

/** A mutable cell holding the state a transaction is building. */
interface Draft {
  state: State
}

const copy = <A extends Schema.Json>(value: A): A => structuredClone(value)

const copyRevision = (revision: Revision): Revision => ({
  ...revision,
  content: copy(revision.content),
  output: revision.output === undefined ? undefined : copy(revision.output),
})

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const recordOf = (name: string, platform: PlatformState): PlatformRecord => ({
  name,
  kind: platform.kind,
  versions: sortVersions(platform.versions.keys()),
})

const withPlatform = (state: State, name: string, platform: PlatformState | undefined): State => {
  const platforms = new Map(state.platforms)
  if (platform === undefined) platforms.delete(name)
  else platforms.set(name, platform)
  return { ...state, platforms }
}

const withVersion = (platform: PlatformState, version: string, value: VersionState | undefined): PlatformState =>
  withVersions(platform, [[version, value]])

/** Several versions changed with one copy of the map: a batch of N costs N, not N copies of it. */
const withVersions = (
  platform: PlatformState,
  changes: Iterable<readonly [string, VersionState | undefined]>,
): PlatformState => {
  const versions = new Map(platform.versions)
  for (const [version, value] of changes) {
    if (value === undefined) versions.delete(version)
    else versions.set(version, value)
  }
  return { ...platform, versions }
}

/**
 * The transactions open in the current fiber, by the store they belong to, so that a transaction on one store
 * never captures calls meant for another (tests run several side by side).
 */
const OpenDrafts = Context.Reference<ReadonlyMap<object, Draft>>("@coffer/schemas/memoryStore/OpenDrafts", {
  defaultValue: () => new Map(),
})

const sortedDistinct = (values: ReadonlyArray<string> | undefined) =>
  values === undefined ? undefined : [...new Set(values)].sort(byName)

/** A fresh store with its own state. */
export const make: Effect.Effect<SchemaStore["Service"]> = Effect.gen(function* () {
  const committed: Draft = { state: emptyState }
  const writers = yield* Semaphore.make(1)
  const openDraft = Effect.map(OpenDrafts, (open) => open.get(committed))

  const read = <A>(f: (state: State) => A): Effect.Effect<A> =>
    Effect.map(openDraft, (draft) => f((draft ?? committed).state))

  const write = <A>(f: (state: State) => readonly [State, A]): Effect.Effect<A> =>
    Effect.flatMap(openDraft, (draft) => {
      const apply = (cell: Draft) =>
        Effect.sync(() => {
          const [next, result] = f(cell.state)
          cell.state = next
          return result
        })
      return draft === undefined ? writers.withPermits(1)(apply(committed)) : apply(draft)
    })

  const writeVoid = (f: (state: State) => State): Effect.Effect<void> => write((state) => [f(state), undefined])

  const findPlatform = (name: string) =>
    read((state) => {
      const platform = state.platforms.get(name)
      return platform === undefined ? undefined : recordOf(name, platform)
    })

  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(OpenDrafts, (open) => {
      // Already inside a transaction on this store: join it, so the outermost caller decides.
      if (open.has(committed)) return effect
      return writers.withPermits(1)(
        Effect.suspend(() => {
          const draft: Draft = { state: committed.state }
          return Effect.provideService(effect, OpenDrafts, new Map(open).set(committed, draft)).pipe(
            Effect.tap(() =>
              Effect.sync(() => {
                committed.state = draft.state
              }),
            ),
          )
        }),
      )
    })

  return SchemaStore.of({
    listPlatforms: read((state) =>
      [...state.platforms.entries()]
        .sort(([a], [b]) => byName(a, b))
        .map(([name, platform]) => recordOf(name, platform)),
    ),
    findPlatform,
    platformOverview: (name) =>
      read((state) => {
        const platform = state.platforms.get(name)
        if (platform === undefined) return undefined
        const record = recordOf(name, platform)
        return {
          ...record,
          summaries: record.versions.map((version) => {
            const row = platform.versions.get(version)!
            // The schema's last save is its last revision: a save always appends one (rule 4).
            const last = row.revisions.at(-1)
            return {
              version,
              schema:
                row.schema === undefined || last === undefined
                  ? undefined
                  : {
                      dependencies: [...row.schema.dependencies],
                      revision: last.revision,
                      savedBy: last.savedBy,
                      savedAt: last.savedAt,
                    },
            }
          }),
        }
      }),
    loadPlatforms: (names) =>
      read((state) => {
        const found = new Map<string, PlatformData>()
        for (const name of new Set(names)) {
          const platform = state.platforms.get(name)
          if (platform === undefined) continue
          const schemas = new Map<string, Schema.JsonObject>()
          for (const [version, row] of platform.versions) {
            if (row.schema !== undefined) schemas.set(version, copy(row.schema.content))
          }
          found.set(name, { ...recordOf(name, platform), schemas })
        }
        return found as ReadonlyMap<string, PlatformData>
      }),
    findSchema: (id) =>
      read((state) => {
        const schema = state.platforms.get(id.platform)?.versions.get(id.version)?.schema
        return schema === undefined
          ? undefined
          : {
              ...id,
              content: copy(schema.content),
              dependencies: [...schema.dependencies],
              output: copy(schema.output),
              sources: schema.sources === undefined ? undefined : [...schema.sources],
            }
      }),
    dependentsOf: (platforms) =>
      read((state) => {
        const wanted = new Set(platforms)
        const found: Array<DependencyEdge> = []
        for (const data of state.platforms.values()) {
          for (const row of data.versions.values()) {
            for (const edge of row.edges) if (wanted.has(edge.platform)) found.push(edge)
          }
        }
        return found
      }),
    insertPlatform: (name, kind) =>
      write((state) =>
        state.platforms.has(name) ? [state, false] : [withPlatform(state, name, { kind, versions: new Map() }), true],
      ),
    setKind: (name, kind) =>
      writeVoid((state) => {
        const platform = state.platforms.get(name)
        return platform === undefined ? state : withPlatform(state, name, { ...platform, kind })
      }),
    insertVersions: (name, versions) =>
      writeVoid((state) => {
        const platform = state.platforms.get(name)
        if (platform === undefined) return state
        const added = versions.filter((version) => !platform.versions.has(version))
        return withPlatform(
          state,
          name,
          withVersions(
            platform,
            added.map((version) => [version, { schema: undefined, edges: [], revisions: [] }]),
          ),
        )
      }),
    removeVersions: (name, versions) =>
      writeVoid((state) => {
        const platform = state.platforms.get(name)
        if (platform === undefined) return state
        return withPlatform(
          state,
          name,
          withVersions(
            platform,
            versions.map((version) => [version, undefined]),
          ),
        )
      }),
    removePlatform: (name) =>
      write((state) => {
        const tokens = new Map(state.tokens)
        const narrowed: Array<StoredToken> = []
        for (const token of state.tokens.values()) {
          if (token.platforms === null || !token.platforms.includes(name)) continue
          const changed = { ...token, platforms: token.platforms.filter((platform) => platform !== name) }
          tokens.set(token.id, changed)
          narrowed.push({ ...changed })
        }
        return [{ ...withPlatform(state, name, undefined), tokens }, narrowed]
      }),
    saveSchema: (input) =>
      writeVoid((state) => {
        const platform = state.platforms.get(input.platform)
        const row = platform?.versions.get(input.version)
        if (platform === undefined || row === undefined) return state
        const revision: Revision = {
          revision: row.revisions.length + 1,
          content: copy(input.content),
          output: copy(input.output),
          savedBy: input.savedBy,
          savedAt: input.savedAt,
          ...(input.restoredFrom === undefined ? {} : { restoredFrom: input.restoredFrom }),
        }
        return withPlatform(
          state,
          input.platform,
          withVersion(platform, input.version, {
            schema: {
              content: copy(input.content),
              dependencies: [...input.dependencies],
              output: copy(input.output),
              sources: sortedDistinct(input.sources),
            },
            edges: dependencyEdges({ platform: input.platform, version: input.version }, input.dependencies),
            revisions: [...row.revisions, revision],
          }),
        )
      }),
    saveOutputs: (outputs) =>
      writeVoid((state) => {
        // Grouped by platform, so each touched platform's map is copied once, and the platforms' map once.
        const changes = new Map<string, Array<readonly [string, VersionState]>>()
        for (const output of outputs) {
          const row = state.platforms.get(output.platform)?.versions.get(output.version)
          if (row?.schema === undefined) continue
          const schema = { ...row.schema, output: copy(output.output), sources: sortedDistinct(output.sources) }
          const list = changes.get(output.platform) ?? []
          list.push([output.version, { ...row, schema }])
          changes.set(output.platform, list)
        }
        if (changes.size === 0) return state
        const platforms = new Map(state.platforms)
        for (const [name, list] of changes) platforms.set(name, withVersions(state.platforms.get(name)!, list))
        return { ...state, platforms }
      }),
    revisions: (id) =>
      read((state) => (state.platforms.get(id.platform)?.versions.get(id.version)?.revisions ?? []).map(copyRevision)),
    listRevisions: (id, { limit, before }) =>
      read((state) => {
        const all = state.platforms.get(id.platform)?.versions.get(id.version)?.revisions ?? []
        // Numbered from 1 without gaps, oldest first: revision n sits at index n - 1.
        const end = before === undefined ? all.length : Math.max(0, Math.min(all.length, before - 1))
        return all
          .slice(Math.max(0, end - limit), end)
          .reverse()
          .map(({ revision, savedBy, savedAt, restoredFrom }) =>
            restoredFrom === undefined ? { revision, savedBy, savedAt } : { revision, savedBy, savedAt, restoredFrom },
          )
      }),
    findRevision: (id, revision) =>
      read((state) => {
        const found = state.platforms
          .get(id.platform)
          ?.versions.get(id.version)
          ?.revisions.find((candidate) => candidate.revision === revision)
        return found === undefined ? undefined : copyRevision(found)
      }),
    insertToken: (token) =>
      writeVoid((state) => ({ ...state, tokens: new Map(state.tokens).set(token.id, { ...token }) })),
    listTokens: read((state) =>
      [...state.tokens.values()]
        .sort((a, b) => a.createdAt - b.createdAt || byName(a.id, b.id))
        .map(({ hash: _hash, ...record }): TokenRecord => record),
    ),
    findTokenByHash: (hash) =>
      read((state) => {
        const token = [...state.tokens.values()].find((candidate) => candidate.hash === hash)
        return token === undefined ? undefined : { ...token }
      }),
    removeToken: (id) =>
      write((state) => {
        const token = state.tokens.get(id)
        if (token === undefined) return [state, undefined]
        const tokens = new Map(state.tokens)
        tokens.delete(id)
        return [{ ...state, tokens }, token]
      }),
    touchToken: (id, at) =>
      writeVoid((state) => {
        const token = state.tokens.get(id)
        return token === undefined
          ? state
          : { ...state, tokens: new Map(state.tokens).set(id, { ...token, lastUsedAt: at }) }
      }),
    appendAudit: (entry) => writeVoid((state) => ({ ...state, audit: [...state.audit, entry] })),
    listAudit: ({ limit, before }) =>
      read((state) =>
        [...state.audit]
          .sort((a, b) => b.at - a.at || byName(b.id, a.id))
          .filter(
            (entry) => before === undefined || entry.at < before.at || (entry.at === before.at && entry.id < before.id),
          )
          .slice(0, limit),
      ),
    transaction,
  })
})

/** The SchemaStore on a fresh in-memory state, which lives as long as the layer. */
export const layer: Layer.Layer<SchemaStore> = Layer.effect(SchemaStore, make)
