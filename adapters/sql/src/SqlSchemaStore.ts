/**
 * The SchemaStore port of `@coffer/schemas` on SQL (SQLite and Postgres alike, through Kysely), over the tables of
 * migration `0003_schemas`. It moves rows; the rules live on the port and in the use cases.
 *
 * - Every statement goes through `SqlDatabase.query`, so a transaction opened by `transaction` (or by a caller's
 *   `withTransaction`) covers it wherever this store was built. Methods of several statements run in a
 *   transaction of their own, which joins the caller's when one is open.
 * - Writing transactions do not interleave (port rule 7): on Postgres each takes a transaction-scoped advisory
 *   lock first, so concurrent saves queue instead of cascading from data another save is changing; SQLite runs
 *   every transaction on its single connection, one at a time, already.
 * - Lists are sorted in JavaScript with the domain's order (`compareVersions`, code-unit order for names), so
 *   both dialects answer alike whatever the database's collation.
 * - Lookups by many names are chunked, keeping well inside every driver's limit on bound parameters: a batch is
 *   a fixed few statements for the sizes a cascade meets, never one per name.
 * - A failed statement that is not an outage is a bug here, not a condition a caller can handle: a defect (500).
 *   An unreachable database stays `StoreUnavailable` (503).
 */
import type { StoreUnavailable } from "@coffer/kernel"
import {
  type AuditEntry,
  type DependencyEdge,
  dependencyEdges,
  type PlatformData,
  type PlatformKind,
  type PlatformRecord,
  type Revision,
  SchemaStore,
  type StoredToken,
  sortVersions,
  type TokenRecord,
} from "@coffer/schemas"
import { Effect, Layer, type Schema } from "effect"
import { sql } from "kysely"
import { SqlDatabase } from "./SqlDatabase.js"
import * as SqlStore from "./SqlStore.js"
import type { SchemasRevisionRow, SchemasTokenRow, SchemasVersionRow } from "./tables/schemas.js"

/** Bound parameters per `in (…)` list: far below SQLite's 32766 and Postgres' 65535. */
const CHUNK = 500

/** The advisory lock key of schema writes on Postgres: `coffer` in ASCII, then the area. */
const WRITE_LOCK = [0x636f66, 0x0003] as const

const iso = (ms: number) => new Date(ms).toISOString()
const ms = (text: string) => Date.parse(text)
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Rows per batched output update (four parameters each). */
const OUTPUT_CHUNK = 250

const chunks = <A>(items: ReadonlyArray<A>, size = CHUNK): ReadonlyArray<ReadonlyArray<A>> => {
  const result: Array<ReadonlyArray<A>> = []
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size))
  return result
}

const json = (value: Schema.Json | ReadonlyArray<string>) => JSON.stringify(value)
const parseObject = (text: string) => JSON.parse(text) as Schema.JsonObject
const parseList = (text: string) => JSON.parse(text) as ReadonlyArray<string>
const sortedDistinct = (values: ReadonlyArray<string>) => [...new Set(values)].sort(byName)

const recordOf = (name: string, kind: string | null, versions: ReadonlyArray<string>): PlatformRecord => ({
  name,
  kind: (kind ?? undefined) as PlatformKind | undefined,
  versions: sortVersions(versions),
})

const tokenOf = (row: SchemasTokenRow): StoredToken => ({
  id: row.id,
  name: row.name,
  platforms: row.platforms === null ? null : parseList(row.platforms),
  hint: row.hint,
  createdAt: ms(row.created_at),
  createdBy: row.created_by,
  lastUsedAt: row.last_used_at === null ? undefined : ms(row.last_used_at),
  hash: row.token_hash,
})

const revisionOf = (row: SchemasRevisionRow): Revision => ({
  revision: Number(row.revision),
  content: parseObject(row.content),
  output: row.output === null ? undefined : parseObject(row.output),
  savedBy: row.saved_by,
  savedAt: ms(row.saved_at),
})

/**
 * `run` over each chunk, yielding to the event loop after each: a cascade's batch lookups span many chunks, and
 * SQLite's driver answers synchronously, so without the yields they would hold the process for their whole length.
 */
const eachChunk = <A, B, E>(items: ReadonlyArray<A>, run: (chunk: ReadonlyArray<A>) => Effect.Effect<B, E>) =>
  Effect.forEach(chunks(items), (chunk) => Effect.tap(run(chunk), () => Effect.yieldNow))

/** The store on the `SqlDatabase` in context; the database must be migrated. */
export const make: Effect.Effect<SchemaStore["Service"], never, SqlDatabase> = Effect.map(SqlDatabase, (database) => {
  const { query, transaction: inTransaction } = SqlStore.make(database)

  const lock: Effect.Effect<void, StoreUnavailable> =
    database.dialect === "postgres"
      ? query((db) => sql`select pg_advisory_xact_lock(${WRITE_LOCK[0]}, ${WRITE_LOCK[1]})`.execute(db)).pipe(
          Effect.asVoid,
        )
      : Effect.void

  // Every write holds the write lock for its whole transaction (rule 1 of the port).
  const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
    inTransaction(Effect.andThen(lock, effect)) as Effect.Effect<A, E | StoreUnavailable, R>

  /** Rows of `schemas_versions` of the named platforms, `columns` chosen by the caller, in chunks. */
  const versionRows = (names: ReadonlyArray<string>, withContent: boolean) =>
    Effect.map(
      eachChunk(names, (chunk) =>
        query((db) =>
          db
            .selectFrom("schemas_versions")
            .select(["platform", "version", ...(withContent ? (["content"] as const) : [])])
            .where("platform", "in", chunk)
            .execute(),
        ),
      ),
      (parts) => parts.flat() as ReadonlyArray<Pick<SchemasVersionRow, "platform" | "version" | "content">>,
    )

  const platformRows = (names: ReadonlyArray<string>) =>
    Effect.map(
      eachChunk(names, (chunk) =>
        query((db) => db.selectFrom("schemas_platforms").select(["name", "kind"]).where("name", "in", chunk).execute()),
      ),
      (parts) => parts.flat(),
    )

  const findPlatform = (name: string) =>
    Effect.gen(function* () {
      const [platform] = yield* platformRows([name])
      if (platform === undefined) return undefined
      const versions = yield* versionRows([name], false)
      return recordOf(
        platform.name,
        platform.kind,
        versions.map((row) => row.version),
      )
    })

  const replaceEdges = (platform: string, version: string, dependencies: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      yield* query((db) =>
        db
          .deleteFrom("schemas_dependencies")
          .where("dependent_platform", "=", platform)
          .where("dependent_version", "=", version)
          .execute(),
      )
      // Positions come from the dependencies as written, so a reference that does not parse leaves a gap.
      const edges = dependencies.flatMap((reference, position) =>
        dependencyEdges({ platform, version }, [reference]).map((edge) => ({
          dependent_platform: platform,
          dependent_version: version,
          position,
          platform: edge.platform,
          reference: edge.reference,
        })),
      )
      if (edges.length > 0) yield* query((db) => db.insertInto("schemas_dependencies").values(edges).execute())
    })

  return SchemaStore.of({
    listPlatforms: Effect.gen(function* () {
      const platforms = yield* query((db) => db.selectFrom("schemas_platforms").select(["name", "kind"]).execute())
      const versions = yield* query((db) => db.selectFrom("schemas_versions").select(["platform", "version"]).execute())
      const byPlatform = new Map<string, Array<string>>()
      for (const row of versions) {
        const list = byPlatform.get(row.platform)
        if (list === undefined) byPlatform.set(row.platform, [row.version])
        else list.push(row.version)
      }
      return platforms
        .map((row) => recordOf(row.name, row.kind, byPlatform.get(row.name) ?? []))
        .sort((a, b) => byName(a.name, b.name))
    }),
    findPlatform,
    // Chunk by chunk (two statements each), so the parsing of one chunk's contents is followed by a yield too.
    loadPlatforms: (names) =>
      Effect.gen(function* () {
        const found = new Map<string, PlatformData>()
        yield* eachChunk([...new Set(names)], (chunk) =>
          Effect.gen(function* () {
            const platforms = yield* platformRows(chunk)
            if (platforms.length === 0) return
            const rows = yield* versionRows(
              platforms.map((platform) => platform.name),
              true,
            )
            // Grouped once: filtering the rows per platform would cost platforms × rows.
            const byPlatform = new Map<string, Array<(typeof rows)[number]>>()
            for (const row of rows) {
              const list = byPlatform.get(row.platform)
              if (list === undefined) byPlatform.set(row.platform, [row])
              else list.push(row)
            }
            for (const platform of platforms) {
              const own = byPlatform.get(platform.name) ?? []
              const schemas = new Map<string, Schema.JsonObject>()
              for (const row of own) if (row.content !== null) schemas.set(row.version, parseObject(row.content))
              found.set(platform.name, {
                ...recordOf(
                  platform.name,
                  platform.kind,
                  own.map((row) => row.version),
                ),
                schemas,
              })
            }
          }),
        )
        return found
      }),
    findSchema: (id) =>
      query((db) =>
        db
          .selectFrom("schemas_versions")
          .select(["content", "dependencies", "output", "sources"])
          .where("platform", "=", id.platform)
          .where("version", "=", id.version)
          .executeTakeFirst(),
      ).pipe(
        Effect.map((row) =>
          row?.content == null
            ? undefined
            : {
                ...id,
                content: parseObject(row.content),
                dependencies: row.dependencies === null ? [] : parseList(row.dependencies),
                output: row.output === null ? {} : parseObject(row.output),
                sources: row.sources === null ? undefined : parseList(row.sources),
              },
        ),
      ),
    dependentsOf: (platforms) =>
      Effect.map(
        eachChunk([...new Set(platforms)], (chunk) =>
          query((db) =>
            db
              .selectFrom("schemas_dependencies")
              .selectAll()
              .where("platform", "in", chunk)
              .orderBy("dependent_platform")
              .orderBy("dependent_version")
              .orderBy("position")
              .execute(),
          ),
        ),
        (parts) =>
          parts.flat().map(
            (row): DependencyEdge => ({
              dependent: { platform: row.dependent_platform, version: row.dependent_version },
              platform: row.platform,
              reference: row.reference,
            }),
          ),
      ),
    insertPlatform: (name, kind, at) =>
      query((db) =>
        db
          .insertInto("schemas_platforms")
          .values({ name, kind: kind ?? null, created_at: iso(at) })
          .onConflict((conflict) => conflict.column("name").doNothing())
          .executeTakeFirst(),
      ).pipe(Effect.map((result) => Number(result.numInsertedOrUpdatedRows ?? 0) > 0)),
    setKind: (name, kind) =>
      query((db) => db.updateTable("schemas_platforms").set({ kind }).where("name", "=", name).execute()).pipe(
        Effect.asVoid,
      ),
    insertVersions: (platform, versions, at) =>
      versions.length === 0
        ? Effect.void
        : query((db) =>
            db
              .insertInto("schemas_versions")
              .values(versions.map((version) => ({ platform, version, created_at: iso(at) })))
              .onConflict((conflict) => conflict.columns(["platform", "version"]).doNothing())
              .execute(),
          ).pipe(Effect.asVoid),
    removeVersions: (platform, versions) =>
      Effect.forEach(
        chunks(versions),
        (chunk) =>
          query((db) =>
            db.deleteFrom("schemas_versions").where("platform", "=", platform).where("version", "in", chunk).execute(),
          ),
        { discard: true },
      ),
    removePlatform: (name) =>
      query((db) => db.deleteFrom("schemas_platforms").where("name", "=", name).execute()).pipe(Effect.asVoid),
    saveSchema: (write) =>
      transaction(
        Effect.gen(function* () {
          const updated = yield* query((db) =>
            db
              .updateTable("schemas_versions")
              .set({
                content: json(write.content),
                dependencies: json(write.dependencies),
                output: json(write.output),
                sources: write.sources === undefined ? null : json(sortedDistinct(write.sources)),
                saved_at: iso(write.savedAt),
                saved_by: write.savedBy,
              })
              .where("platform", "=", write.platform)
              .where("version", "=", write.version)
              .executeTakeFirst(),
          )
          if (Number(updated.numUpdatedRows) === 0) return
          yield* replaceEdges(write.platform, write.version, write.dependencies)
          const last = yield* query((db) =>
            db
              .selectFrom("schemas_revisions")
              .select((eb) => eb.fn.max("revision").as("revision"))
              .where("platform", "=", write.platform)
              .where("version", "=", write.version)
              .executeTakeFirst(),
          )
          yield* query((db) =>
            db
              .insertInto("schemas_revisions")
              .values({
                platform: write.platform,
                version: write.version,
                revision: Number(last?.revision ?? 0) + 1,
                content: json(write.content),
                output: json(write.output),
                saved_at: iso(write.savedAt),
                saved_by: write.savedBy,
              })
              .execute(),
          )
        }),
      ),
    // A cascade writes thousands of outputs: one statement per chunk of rows (an update joined to a VALUES
    // list, which both dialects accept), not one per row, with a yield to the event loop between chunks.
    saveOutputs: (writes) =>
      writes.length === 0
        ? Effect.void
        : transaction(
            Effect.forEach(
              chunks(writes, OUTPUT_CHUNK),
              (chunk) =>
                query((db) =>
                  sql`with changed (platform, version, output, sources) as (values ${sql.join(
                    chunk.map(
                      (write) =>
                        sql`(${write.platform}, ${write.version}, ${json(write.output)}, ${json(sortedDistinct(write.sources))})`,
                    ),
                  )})
                  update schemas_versions set output = changed.output, sources = changed.sources
                  from changed
                  where schemas_versions.platform = changed.platform
                    and schemas_versions.version = changed.version
                    and schemas_versions.content is not null`.execute(db),
                ).pipe(Effect.andThen(Effect.yieldNow)),
              { discard: true },
            ),
          ),
    revisions: (id) =>
      query((db) =>
        db
          .selectFrom("schemas_revisions")
          .selectAll()
          .where("platform", "=", id.platform)
          .where("version", "=", id.version)
          .orderBy("revision")
          .execute(),
      ).pipe(Effect.map((rows) => rows.map(revisionOf))),
    listRevisions: (id, { limit, before }) =>
      query((db) =>
        db
          .selectFrom("schemas_revisions")
          .select(["revision", "saved_at", "saved_by"])
          .where("platform", "=", id.platform)
          .where("version", "=", id.version)
          .$if(before !== undefined, (select) => select.where("revision", "<", before!))
          .orderBy("revision", "desc")
          .limit(limit)
          .execute(),
      ).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({ revision: Number(row.revision), savedBy: row.saved_by, savedAt: ms(row.saved_at) })),
        ),
      ),
    findRevision: (id, revision) =>
      query((db) =>
        db
          .selectFrom("schemas_revisions")
          .selectAll()
          .where("platform", "=", id.platform)
          .where("version", "=", id.version)
          .where("revision", "=", revision)
          .executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? undefined : revisionOf(row)))),
    insertToken: (token) =>
      query((db) =>
        db
          .insertInto("schemas_tokens")
          .values({
            id: token.id,
            name: token.name,
            token_hash: token.hash,
            hint: token.hint,
            platforms: token.platforms === null ? null : json(token.platforms),
            created_at: iso(token.createdAt),
            created_by: token.createdBy,
            last_used_at: token.lastUsedAt === undefined ? null : iso(token.lastUsedAt),
          })
          .execute(),
      ).pipe(Effect.asVoid),
    listTokens: query((db) => db.selectFrom("schemas_tokens").selectAll().execute()).pipe(
      Effect.map((rows) =>
        rows
          .map(tokenOf)
          .sort((a, b) => a.createdAt - b.createdAt || byName(a.id, b.id))
          .map(({ hash: _hash, ...record }): TokenRecord => record),
      ),
    ),
    findTokenByHash: (hash) =>
      query((db) => db.selectFrom("schemas_tokens").selectAll().where("token_hash", "=", hash).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? undefined : tokenOf(row))),
      ),
    removeToken: (id) =>
      transaction(
        Effect.gen(function* () {
          const row = yield* query((db) =>
            db.selectFrom("schemas_tokens").selectAll().where("id", "=", id).executeTakeFirst(),
          )
          if (row === undefined) return undefined
          const deleted = yield* query((db) => db.deleteFrom("schemas_tokens").where("id", "=", id).executeTakeFirst())
          // A concurrent revocation that deleted it first owns the audit entry: this one found nothing.
          return Number(deleted.numDeletedRows) === 0 ? undefined : tokenOf(row)
        }),
      ),
    touchToken: (id, at) =>
      query((db) =>
        db
          .updateTable("schemas_tokens")
          .set({ last_used_at: iso(at) })
          .where("id", "=", id)
          .execute(),
      ).pipe(Effect.asVoid),
    appendAudit: (entry: AuditEntry) =>
      query((db) =>
        db
          .insertInto("schemas_audit")
          .values({
            id: entry.id,
            at: iso(entry.at),
            actor: entry.actor,
            action: entry.action,
            target: entry.target,
            detail: entry.detail === undefined ? null : json(entry.detail),
          })
          .execute(),
      ).pipe(Effect.asVoid),
    listAudit: ({ limit, before }) =>
      query((db) => {
        let statement = db.selectFrom("schemas_audit").selectAll()
        if (before !== undefined) {
          const at = iso(before.at)
          statement = statement.where((eb) =>
            eb.or([eb("at", "<", at), eb.and([eb("at", "=", at), eb("id", "<", before.id)])]),
          )
        }
        return statement.orderBy("at", "desc").orderBy("id", "desc").limit(limit).execute()
      }).pipe(
        Effect.map((rows) =>
          rows.map(
            (row): AuditEntry => ({
              id: row.id,
              at: ms(row.at),
              actor: row.actor,
              action: row.action as AuditEntry["action"],
              target: row.target,
              detail: row.detail === null ? undefined : (JSON.parse(row.detail) as AuditEntry["detail"]),
            }),
          ),
        ),
      ),
    transaction,
  })
})

/** The SchemaStore on the `SqlDatabase` in context; the database must be migrated. */
export const layer: Layer.Layer<SchemaStore, never, SqlDatabase> = Layer.effect(SchemaStore, make)
