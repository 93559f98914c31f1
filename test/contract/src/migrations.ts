/**
 * The contract of the SQL storage foundation, run against every dialect: migrations apply once and only once,
 * driver errors arrive classified, and `withTransaction` is all or nothing, including for a store that
 * captured the `SqlDatabase` before the transaction began.
 *
 * `makeLayer` is called once per test and must give a fresh, empty database each time.
 */
import { latestMigration, migrate, migrations, NewerDatabase, SqlDatabase, SqlKeyCanary } from "@coffer/adapter-sql"
import { MasterKeyCheck, Readiness } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { sql } from "kysely"
import { describe, expect, it } from "vitest"

/** Runs, in order, the migrations whose names pass `test`: a database as an older release left it, then the rest. */
const migrationsWhere = (database: SqlDatabase.SqlDatabase["Service"]) => (test: (name: string) => boolean) =>
  database.query(async (db) => {
    for (const name of Object.keys(migrations).sort().filter(test)) await migrations[name]!.up(db)
  })

class Boom extends Schema.TaggedError<Boom>()("Boom", {}) {}

const tableNames = SqlDatabase.query((db) => db.introspection.getTables()).pipe(
  Effect.map((tables) => tables.map((table) => table.name).sort()),
)

const metaRows = SqlDatabase.query((db) => db.selectFrom("coffer_meta").selectAll().orderBy("key").execute())

const insertMeta = (key: string, value = "v") =>
  SqlDatabase.query((db) => db.insertInto("coffer_meta").values({ key, value }).execute())

const metaKeys = (prefix: string) =>
  SqlDatabase.query((db) =>
    db.selectFrom("coffer_meta").select("key").where("key", "like", `${prefix}%`).orderBy("key").execute(),
  ).pipe(Effect.map((rows) => rows.map((row) => row.key)))

type Db = Parameters<Parameters<SqlDatabase.SqlDatabase["Service"]["query"]>[0]>[0]

/**
 * A person `u` owning project `p` (data key `dataKey`) with environment `dev` and secret `K` at its last version,
 * whose stored versions are `versions`: the rows a migration finds, written as that migration's predecessors did.
 */
const seedSecret = async (db: Db, at: string, dataKey: string, versions: ReadonlyArray<Record<string, unknown>>) => {
  await db
    .insertInto("secrets_users")
    .values({ id: "u", email: "u@example.com", email_key: "u@example.com", created_at: at } as never)
    .execute()
  await db
    .insertInto("secrets_projects")
    .values({ id: "p", name: "P", slug: "p", owner_id: "u", data_key: dataKey, created_at: at } as never)
    .execute()
  await db
    .insertInto("secrets_environments")
    .values({ id: "e", project_id: "p", name: "dev", created_at: at })
    .execute()
  await addSecret(db, at, "s", "K", versions)
}

/** Secret `id` named `key` in environment `e`, at its last version of `versions`, with those versions stored. */
const addSecret = async (
  db: Db,
  at: string,
  id: string,
  key: string,
  versions: ReadonlyArray<Record<string, unknown>>,
) => {
  await db
    .insertInto("secrets_secrets")
    .values({ id, environment_id: "e", key, version: versions.length, created_at: at, updated_at: at } as never)
    .execute()
  await db
    .insertInto("secrets_secret_versions")
    .values(versions as never)
    .execute()
}

export const migrationSuite = (name: string, makeLayer: () => Layer.Layer<SqlDatabase.SqlDatabase, unknown>) =>
  describe(`SQL foundation: ${name}`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, SqlDatabase.SqlDatabase>): Promise<A> =>
      Effect.runPromise(effect.pipe(Effect.provide(makeLayer())))

    it("migrates a fresh database and records when and to which version", async () => {
      const { applied, tables, meta } = await run(
        Effect.gen(function* () {
          const applied = yield* migrate
          return { applied, tables: yield* tableNames, meta: yield* metaRows }
        }),
      )
      expect(applied).toEqual(Object.keys(migrations).sort())
      expect(tables).toContain("coffer_meta")
      expect(meta.map((row) => row.key)).toEqual(["created_at", "schema_version"])
      expect(meta[0]?.value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(meta[1]?.value).toBe(latestMigration)
    })

    it("migrating again applies nothing and changes nothing", async () => {
      const result = await run(
        Effect.gen(function* () {
          yield* migrate
          const before = { tables: yield* tableNames, meta: yield* metaRows }
          const again = yield* migrate
          return { before, again, after: { tables: yield* tableNames, meta: yield* metaRows } }
        }),
      )
      expect(result.again).toEqual([])
      expect(result.after).toEqual(result.before)
    })

    it("refuses a database a newer release migrated, naming what it does not know, and changes nothing", async () => {
      const result = await run(
        Effect.gen(function* () {
          yield* migrate
          const database = yield* SqlDatabase.SqlDatabase
          yield* database.query((db) =>
            sql`insert into coffer_migration (name, timestamp) values ('9999_from_the_future', '2099-01-01T00:00:00.000Z')`.execute(
              db,
            ),
          )
          const before = { tables: yield* tableNames, meta: yield* metaRows }
          const refused = yield* Effect.flip(migrate)
          return { before, refused, after: { tables: yield* tableNames, meta: yield* metaRows } }
        }),
      )
      expect(result.refused).toBeInstanceOf(NewerDatabase)
      expect(result.refused).toMatchObject({ unknown: ["9999_from_the_future"] })
      expect(result.refused.message).toBe(
        "the database was migrated by a newer release of Coffer (it has 9999_from_the_future, which this release does not know): run that release or a newer one",
      )
      expect(result.after).toEqual(result.before)
    })

    it("reports a duplicate key as SqlError UniqueViolation, not retryable", async () => {
      const error = await run(
        Effect.gen(function* () {
          yield* migrate
          yield* insertMeta("dup")
          return yield* Effect.flip(insertMeta("dup"))
        }),
      )
      expect(error._tag).toBe("SqlError")
      if (error._tag !== "SqlError") return
      expect(error.reason._tag).toBe("UniqueViolation")
      expect(error.retryable).toBe(false)
    })

    it("numbers the secrets audit records written before 0007 in the order they were shown, and goes on after them", async () => {
      const { rows, dialect } = await run(
        Effect.gen(function* () {
          const database = yield* SqlDatabase.SqlDatabase
          const upTo = migrationsWhere(database)
          yield* upTo((name) => name < "0007")
          const record = (id: string, created_at: string) => ({
            id,
            project_id: "p",
            environment_id: null,
            user_id: "u",
            user_email: "u@example.com",
            action: "secret.read",
            target_key: id,
            ip_address: null,
            created_at,
          })
          // Shown until now by time, then id: a, b (one millisecond), then c.
          yield* database.query((db) =>
            db
              .insertInto("secrets_audit_log")
              .values([
                record("b", "2026-01-31T12:00:00.000Z"),
                record("c", "2026-01-31T12:00:00.001Z"),
                record("a", "2026-01-31T12:00:00.000Z"),
              ] as never)
              .execute(),
          )
          yield* upTo((name) => name >= "0007")
          // Postgres numbers what comes next itself (the SQLite store takes the next number in its insert).
          if (database.dialect === "postgres") {
            yield* database.query((db) =>
              db
                .insertInto("secrets_audit_log")
                .values({ ...record("d", "2026-01-31T12:00:00.000Z"), user_email_key: "u@example.com" })
                .execute(),
            )
          }
          const rows = yield* database.query((db) =>
            db.selectFrom("secrets_audit_log").select(["id", "seq"]).orderBy("seq").execute(),
          )
          return { rows: rows.map((row) => [row.id, Number(row.seq)]), dialect: database.dialect }
        }),
      )
      const numbered = [
        ["a", 1],
        ["b", 2],
        ["c", 3],
      ]
      expect(rows).toEqual(dialect === "postgres" ? [...numbered, ["d", 4]] : numbered)
    })

    it("makes every project's data key version 1 at 0008, keeping the key and every sealed value as they were", async () => {
      const { projects, older, values } = await run(
        Effect.gen(function* () {
          const database = yield* SqlDatabase.SqlDatabase
          const upTo = migrationsWhere(database)
          yield* upTo((name) => name < "0008")
          const at = "2026-01-31T12:00:00.000Z"
          yield* database.query((db) =>
            seedSecret(db, at, "cdk1.0000000000000000.kept", [
              { secret_id: "s", version: 1, value: "csv1.kept", user_id: "u", created_at: at },
            ]),
          )
          yield* upTo((name) => name >= "0008")
          return yield* database.query(async (db) => ({
            projects: await db.selectFrom("secrets_projects").select(["id", "data_key", "data_key_version"]).execute(),
            older: await db.selectFrom("secrets_data_keys").selectAll().execute(),
            values: await db.selectFrom("secrets_secret_versions").select(["secret_id", "version", "value"]).execute(),
          }))
        }),
      )
      expect(projects.map((row) => ({ ...row, data_key_version: Number(row.data_key_version) }))).toEqual([
        { id: "p", data_key: "cdk1.0000000000000000.kept", data_key_version: 1 },
      ])
      expect(older).toEqual([])
      expect(values.map((row) => ({ ...row, version: Number(row.version) }))).toEqual([
        { secret_id: "s", version: 1, value: "csv1.kept" },
      ])
    })

    it("keys the address of each secrets audit record written before 0009; the log stays append-only", async () => {
      const outcome = await run(
        Effect.gen(function* () {
          const database = yield* SqlDatabase.SqlDatabase
          const upTo = migrationsWhere(database)
          yield* upTo((name) => name < "0009")
          // ASCII any case; a capital outside ASCII, which SQLite's lower() leaves; an accent written as two code
          // points, which only NFC joins.
          const addresses = ["Ada@Example.COM", "ada@example.com", "ÉVA@example.com", "e\u0301va@example.com"]
          yield* database.query((db) =>
            db
              .insertInto("secrets_audit_log")
              .values(
                addresses.map((address, i) => ({
                  id: `r${i}`,
                  project_id: "p",
                  environment_id: null,
                  user_id: "u",
                  user_email: address,
                  action: "secret.read",
                  target_key: "K",
                  ip_address: null,
                  created_at: "2026-01-31T12:00:00.000Z",
                  seq: i + 1,
                })) as never,
              )
              .execute(),
          )
          yield* upTo((name) => name >= "0009")
          const rows = yield* database.query((db) =>
            db.selectFrom("secrets_audit_log").select(["user_email", "user_email_key"]).orderBy("id").execute(),
          )
          const update = yield* Effect.exit(
            database.query((db) => db.updateTable("secrets_audit_log").set({ user_email_key: "x" }).execute()),
          )
          return { rows, updateRefused: update._tag === "Failure" }
        }),
      )
      expect(outcome).toEqual({
        rows: [
          { user_email: "Ada@Example.COM", user_email_key: "ada@example.com" },
          { user_email: "ada@example.com", user_email_key: "ada@example.com" },
          { user_email: "ÉVA@example.com", user_email_key: "éva@example.com" },
          { user_email: "e\u0301va@example.com", user_email_key: "éva@example.com" },
        ],
        updateRefused: true,
      })
    })

    it("takes platforms deleted before 0010 out of the tokens naming them; an emptied list stays empty", async () => {
      const at = new Date(0).toISOString()
      const rows = await run(
        Effect.gen(function* () {
          const database = yield* SqlDatabase.SqlDatabase
          const upTo = migrationsWhere(database)
          yield* upTo((name) => name < "0010")
          yield* database.query(async (db) => {
            await db.insertInto("schemas_platforms").values({ name: "web", kind: null, created_at: at }).execute()
            const token = (id: string, platforms: ReadonlyArray<string> | null) => ({
              id,
              name: id,
              token_hash: `hash-${id}`,
              hint: "cfs_…abcd",
              platforms: platforms === null ? null : JSON.stringify(platforms),
              created_at: at,
              created_by: "ada@example.com",
              last_used_at: null,
            })
            await db
              .insertInto("schemas_tokens")
              .values([
                token("both", ["ios", "web"]),
                token("gone", ["ios"]),
                token("all", null),
                token("kept", ["web"]),
              ])
              .execute()
          })
          yield* upTo((name) => name >= "0010")
          return yield* database.query((db) =>
            db.selectFrom("schemas_tokens").select(["id", "platforms"]).orderBy("id").execute(),
          )
        }),
      )
      expect(rows).toEqual([
        { id: "all", platforms: null },
        { id: "both", platforms: '["web"]' },
        { id: "gone", platforms: "[]" },
        { id: "kept", platforms: '["web"]' },
      ])
    })

    it("leaves every secret version stored before 0011 with no restoredFrom; later rows keep theirs", async () => {
      const at = "2026-01-31T12:00:00.000Z"
      const rows = await run(
        Effect.gen(function* () {
          const database = yield* SqlDatabase.SqlDatabase
          const upTo = migrationsWhere(database)
          yield* upTo((name) => name < "0011")
          const version = (n: number) => ({
            secret_id: "s",
            version: n,
            value: `csv2.1.v${n}`,
            user_id: "u",
            created_at: at,
          })
          // Version 2 may well have been a restore of 1: nothing said so then, so nothing says so now.
          yield* database.query((db) => seedSecret(db, at, "cdk1.k", [version(1), version(2)]))
          yield* upTo((name) => name >= "0011")
          yield* database.query((db) =>
            db
              .insertInto("secrets_secret_versions")
              .values({ ...version(3), restored_from: 1 })
              .execute(),
          )
          return yield* database.query((db) =>
            db.selectFrom("secrets_secret_versions").select(["version", "restored_from"]).orderBy("version").execute(),
          )
        }),
      )
      expect(
        rows.map((row) => [Number(row.version), row.restored_from === null ? null : Number(row.restored_from)]),
      ).toEqual([
        [1, null],
        [2, null],
        [3, 1],
      ])
    })

    it("marks at 0014 the secrets whose current value is empty, by its sealed length; later rows say so themselves", async () => {
      const at = "2026-01-31T12:00:00.000Z"
      // An empty value's payload is its nonce and tag alone: 54 characters (the Cipher contract checks the length).
      const sealed = (header: string, payloadLength: number) => `${header}.${"A".repeat(payloadLength)}`
      const rows = await run(
        Effect.gen(function* () {
          const database = yield* SqlDatabase.SqlDatabase
          const upTo = migrationsWhere(database)
          yield* upTo((name) => name < "0014")
          const version = (secret: string, n: number, value: string) => ({
            secret_id: secret,
            version: n,
            value,
            user_id: "u",
            created_at: at,
          })
          // K: empty at its last version (2), after a value; its history is not looked at.
          yield* database.query((db) =>
            seedSecret(db, at, "cdk1.k", [
              version("s", 1, sealed("csv2.1", 60)),
              version("s", 2, sealed("csv2.1", 54)),
            ]),
          )
          const more = [
            { id: "legacy-empty", value: sealed("csv1", 54) },
            { id: "wide-header-empty", value: sealed("csv2.123456789", 54) },
            { id: "one-character", value: sealed("csv2.1", 55) },
            { id: "was-empty", value: sealed("csv2.1", 56), before: sealed("csv2.1", 54) },
          ]
          for (const secret of more) {
            const history = secret.before === undefined ? [secret.value] : [secret.before, secret.value]
            yield* database.query((db) =>
              addSecret(
                db,
                at,
                secret.id,
                secret.id,
                history.map((value, index) => version(secret.id, index + 1, value)),
              ),
            )
          }
          yield* upTo((name) => name >= "0014")
          return yield* database.query((db) =>
            db.selectFrom("secrets_secrets").select(["key", "empty"]).orderBy("key").execute(),
          )
        }),
      )
      expect(Object.fromEntries(rows.map((row) => [row.key, Number(row.empty)]))).toEqual({
        K: 1,
        "legacy-empty": 1,
        "one-character": 0,
        "was-empty": 0,
        "wide-header-empty": 1,
      })
    })

    it("leaves every secrets audit record written before 0012 with no API key; later rows keep theirs", async () => {
      const rows = await run(
        Effect.gen(function* () {
          const database = yield* SqlDatabase.SqlDatabase
          const upTo = migrationsWhere(database)
          yield* upTo((name) => name < "0012")
          const record = (id: string, seq: number) => ({
            id,
            project_id: "p",
            environment_id: null,
            user_id: "u",
            user_email: "u@example.com",
            user_email_key: "u@example.com",
            action: "secret.read",
            target_key: "K",
            ip_address: null,
            created_at: "2026-01-31T12:00:00.000Z",
            seq,
          })
          // It may well have been read with a key: nothing said so then, so nothing says so now.
          yield* database.query((db) =>
            db
              .insertInto("secrets_audit_log")
              .values(record("old", 1) as never)
              .execute(),
          )
          yield* upTo((name) => name >= "0012")
          yield* database.query((db) =>
            db
              .insertInto("secrets_audit_log")
              .values({ ...record("new", 2), api_key_id: "k", api_key_name: "ci" })
              .execute(),
          )
          return yield* database.query((db) =>
            db.selectFrom("secrets_audit_log").select(["id", "api_key_id", "api_key_name"]).orderBy("seq").execute(),
          )
        }),
      )
      expect(rows).toEqual([
        { id: "old", api_key_id: null, api_key_name: null },
        { id: "new", api_key_id: "k", api_key_name: "ci" },
      ])
    })

    it("leaves every schema revision stored before 0013 with no restored_from; later rows keep theirs", async () => {
      const at = "2026-01-31T12:00:00.000Z"
      const rows = await run(
        Effect.gen(function* () {
          const database = yield* SqlDatabase.SqlDatabase
          const upTo = migrationsWhere(database)
          yield* upTo((name) => name < "0013")
          const revision = (n: number) => ({
            platform: "web",
            version: "1.0.0",
            revision: n,
            content: `{"n":${n}}`,
            output: `{"n":${n}}`,
            saved_at: at,
            saved_by: "ada@example.com",
          })
          // Revision 2 may well have been typed back to revision 1's content: nothing said so then, nor now.
          yield* database.query(async (db) => {
            await db.insertInto("schemas_platforms").values({ name: "web", kind: null, created_at: at }).execute()
            await db
              .insertInto("schemas_versions")
              .values({ platform: "web", version: "1.0.0", created_at: at, content: '{"n":2}' } as never)
              .execute()
            await db
              .insertInto("schemas_revisions")
              .values([revision(1), revision(2)])
              .execute()
          })
          yield* upTo((name) => name >= "0013")
          yield* database.query((db) =>
            db
              .insertInto("schemas_revisions")
              .values({ ...revision(3), restored_from: 1 })
              .execute(),
          )
          return yield* database.query((db) =>
            db.selectFrom("schemas_revisions").select(["revision", "restored_from"]).orderBy("revision").execute(),
          )
        }),
      )
      expect(
        rows.map((row) => [Number(row.revision), row.restored_from === null ? null : Number(row.restored_from)]),
      ).toEqual([
        [1, null],
        [2, null],
        [3, 1],
      ])
    })

    it("keeps both audit logs append-only in the database: UPDATE and DELETE are refused, rows stay", async () => {
      const at = new Date(0).toISOString()
      const outcome = await run(
        Effect.gen(function* () {
          yield* migrate
          yield* SqlDatabase.query(async (db) => {
            await db
              .insertInto("schemas_audit")
              .values({ id: "a1", at, actor: "ada@example.com", action: "token.create", target: "t", detail: null })
              .execute()
            await db
              .insertInto("secrets_audit_log")
              .values({
                id: "b1",
                project_id: "p",
                environment_id: null,
                user_id: "u",
                user_email: "ada@example.com",
                user_email_key: "ada@example.com",
                action: "secret.read",
                target_key: "K",
                ip_address: null,
                created_at: at,
              })
              .execute()
          })
          const refused = (attempt: Effect.Effect<unknown, unknown, SqlDatabase.SqlDatabase>) =>
            Effect.map(Effect.exit(attempt), (exit) => exit._tag === "Failure")
          return {
            refused: [
              yield* refused(
                SqlDatabase.query((db) => db.updateTable("schemas_audit").set({ actor: "mallory" }).execute()),
              ),
              yield* refused(SqlDatabase.query((db) => db.deleteFrom("schemas_audit").execute())),
              yield* refused(
                SqlDatabase.query((db) => db.updateTable("secrets_audit_log").set({ user_email: "mallory" }).execute()),
              ),
              yield* refused(SqlDatabase.query((db) => db.deleteFrom("secrets_audit_log").execute())),
            ],
            schemas: yield* SqlDatabase.query((db) => db.selectFrom("schemas_audit").select("actor").execute()),
            secrets: yield* SqlDatabase.query((db) =>
              db.selectFrom("secrets_audit_log").select("user_email").execute(),
            ),
          }
        }),
      )
      expect(outcome).toEqual({
        refused: [true, true, true, true],
        schemas: [{ actor: "ada@example.com" }],
        secrets: [{ user_email: "ada@example.com" }],
      })
    })

    it("finds a project whose data key, current or older, starts with none of the keyring's prefixes", async () => {
      const ours = "cdk1.1111111111111111."
      const theirs = "cdk1.2222222222222222."
      const found = await run(
        Effect.gen(function* () {
          const database = yield* SqlDatabase.SqlDatabase
          yield* migrate
          const at = "2026-01-31T12:00:00.000Z"
          yield* database.query((db) =>
            seedSecret(db, at, `${ours}current`, [
              { secret_id: "s", version: 1, value: "csv1.x", user_id: "u", created_at: at },
            ]),
          )
          const elsewhere = (prefixes: ReadonlyArray<string>) =>
            Effect.flatMap(MasterKeyCheck.KeyCanary, (canary) => canary.projectWrappedElsewhere(prefixes)).pipe(
              Effect.provide(SqlKeyCanary.layer),
            )
          const current = yield* elsewhere([ours])
          const onlyTheirs = yield* elsewhere([theirs])
          yield* database.query((db) =>
            db
              .insertInto("secrets_data_keys")
              .values({ project_id: "p", version: 1, data_key: `${theirs}older` })
              .execute(),
          )
          return { current, onlyTheirs, older: yield* elsewhere([ours]), both: yield* elsewhere([theirs, ours]) }
        }),
      )
      expect(found).toEqual({ current: undefined, onlyTheirs: "p", older: "p", both: undefined })
    })

    it("pings, and answers the Readiness port", async () => {
      const check = Effect.flatMap(Readiness.Readiness, (readiness) => readiness.check)
      await expect(run(SqlDatabase.ping)).resolves.toBeUndefined()
      await expect(run(Effect.provide(check, SqlDatabase.layerReadiness))).resolves.toBeUndefined()
    })

    describe("withTransaction", () => {
      it("commits every write when the effect succeeds", async () => {
        const keys = await run(
          Effect.gen(function* () {
            yield* migrate
            const value = yield* SqlDatabase.withTransaction(
              Effect.gen(function* () {
                yield* insertMeta("t:a")
                yield* insertMeta("t:b")
                return "done"
              }),
            )
            expect(value).toBe("done")
            return yield* metaKeys("t:")
          }),
        )
        expect(keys).toEqual(["t:a", "t:b"])
      })

      it("keeps none of the writes when the effect fails, and fails with the effect's own error", async () => {
        const { error, keys } = await run(
          Effect.gen(function* () {
            yield* migrate
            const error = yield* Effect.flip(
              SqlDatabase.withTransaction(
                Effect.gen(function* () {
                  yield* insertMeta("t:a")
                  return yield* new Boom()
                }),
              ),
            )
            return { error, keys: yield* metaKeys("t:") }
          }),
        )
        expect(error._tag).toBe("Boom")
        expect(keys).toEqual([])
      })

      it("keeps none of the writes when a later statement fails", async () => {
        const { error, keys } = await run(
          Effect.gen(function* () {
            yield* migrate
            const error = yield* Effect.flip(
              SqlDatabase.withTransaction(
                Effect.gen(function* () {
                  yield* insertMeta("t:a")
                  yield* insertMeta("t:b")
                  yield* insertMeta("t:a")
                }),
              ),
            )
            return { error, keys: yield* metaKeys("t:") }
          }),
        )
        expect(error._tag === "SqlError" && error.reason._tag).toBe("UniqueViolation")
        expect(keys).toEqual([])
      })

      it("covers calls through a service captured before it began, and nested calls join it", async () => {
        const keys = await run(
          Effect.gen(function* () {
            yield* migrate
            // A store keeps the service it was built with; its calls must still land in the transaction.
            const captured = yield* SqlDatabase.SqlDatabase
            const insertCaptured = (key: string) =>
              captured.query((db) => db.insertInto("coffer_meta").values({ key, value: "v" }).execute())
            const seenInside = yield* Effect.flip(
              captured.withTransaction(
                Effect.gen(function* () {
                  yield* insertCaptured("t:outer")
                  yield* SqlDatabase.withTransaction(insertMeta("t:nested"))
                  const inside = yield* captured.query((db) =>
                    db.selectFrom("coffer_meta").select("key").where("key", "like", "t:%").execute(),
                  )
                  return yield* Effect.fail(inside.map((row) => row.key).sort())
                }),
              ),
            )
            expect(seenInside).toEqual(["t:nested", "t:outer"])
            return yield* metaKeys("t:")
          }),
        )
        expect(keys).toEqual([])
      })

      it("rolls back when the effect is interrupted, and the database stays usable", async () => {
        const keys = await run(
          Effect.gen(function* () {
            yield* migrate
            const outcome = yield* SqlDatabase.withTransaction(Effect.andThen(insertMeta("t:a"), Effect.never)).pipe(
              Effect.timeoutOption("200 millis"),
            )
            expect(outcome._tag).toBe("None")
            yield* insertMeta("t:after")
            return yield* metaKeys("t:")
          }),
        )
        expect(keys).toEqual(["t:after"])
      })
    })
  })
