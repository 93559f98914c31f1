/**
 * The statements a secret's read and write run, built once (`../prepared.ts`): they are the hot paths of issue 10,
 * where building and compiling a Kysely query cost more than running it. A read or write by path first reaches its
 * project, environment and secret in one statement (`reach`). Postgres does the audited reads, the reaches and the
 * writes of one turn of the event loop each in one statement (`…Batch`, `writes.audited`: the calls' values as rows,
 * `../batchStatement.ts`, sent by `SqlStore.batched`, which sends a turn's only call as the single-call statement
 * beside each: that one plans in a fraction of the time); the reads and writes are data-modifying statements (each
 * change with its audit record, all or nothing by itself: one round trip and one commit for the turn). SQLite, which
 * has no such CTE, runs each call's parts in one transaction (`environments.ts`, `projects.ts`), and commits a
 * turn's transactions together its own way (the SQLite adapter's group commit).
 *
 * Exported as `SqlSecretStatements`: the benchmarks' Postgres reference runs these very statements on a bare route.
 */
import { type InsertQueryBuilder, type QueryCreator, sql } from "kysely"
import { type Columns, type ColumnTypes, callRows, fromRow } from "../batchStatement.js"
import { type Param, prepare } from "../prepared.js"
import type { Tables } from "../Tables.js"
import { AUDIT_COLUMNS, type AuditDraftValues, type AuditValues, projectColumns } from "./rows.js"

/** The audit columns a read's call gives: the project and environment come from the row it finds. */
const AUDIT_DRAFT_COLUMNS = AUDIT_COLUMNS.filter((column) => column !== "project_id" && column !== "environment_id")

/** A secret and the asked version (its current one by default), in one statement; the version's columns are null when it has none. */
const readSecretRow = (db: QueryCreator<Tables>, environmentId: string, key: string, version: number | undefined) =>
  db
    .selectFrom("secrets_secrets as s")
    .leftJoin("secrets_secret_versions as v", (join) =>
      join
        .onRef("v.secret_id", "=", "s.id")
        .on((eb) =>
          version === undefined ? eb("v.version", "=", eb.ref("s.version")) : eb("v.version", "=", version),
        ),
    )
    .select([
      "s.id",
      "s.environment_id",
      "s.key",
      "s.version",
      "s.empty",
      "s.created_at",
      "s.updated_at",
      "v.version as sealed_version",
      "v.value as sealed_value",
      "v.user_id as sealed_user_id",
      "v.created_at as sealed_created_at",
    ])
    .where("s.environment_id", "=", environmentId)
    .where("s.key", "=", key)

export type ReadRow = NonNullable<Awaited<ReturnType<ReturnType<typeof readSecretRow>["executeTakeFirst"]>>>

export interface ReadParams {
  readonly environmentId: string
  readonly key: string
  /** Unused when the current version is read. */
  readonly version: number
}

const reading = (atVersion: boolean) => (db: QueryCreator<Tables>, param: Param<ReadParams>) =>
  readSecretRow(db, param("environmentId"), param("key"), atVersion ? param("version") : undefined)

/**
 * Postgres: the read and its audit record in one statement (a data-modifying CTE), so one round trip and all or
 * nothing by itself; the record is written only when the version was found.
 */
const readingAudited = (atVersion: boolean) =>
  prepare<ReadParams & AuditValues>()((db, param) =>
    db
      .with("found", (db) => reading(atVersion)(db, param))
      .with("logged", (db) =>
        db
          .insertInto("secrets_audit_log")
          .columns(AUDIT_COLUMNS)
          .expression((eb) =>
            eb
              .selectFrom("found")
              .select(AUDIT_COLUMNS.map((column) => eb.val(param(column)).as(column)))
              .where("found.sealed_version", "is not", null),
          ),
      )
      .selectFrom("found")
      .selectAll(),
  )

export interface WriteParams {
  readonly secretId: string
  readonly environmentId: string
  readonly key: string
  readonly expectedVersion: number
  readonly version: number
  readonly value: string
  /** 1 when the value sealed is the empty string, else 0. */
  readonly empty: number
  readonly userId: string
  readonly at: string
  /** A restore's version brought back; null for an ordinary write (always given: a batch's columns are the first call's keys). */
  readonly restoredFrom: number | null
}

const creating = (db: QueryCreator<Tables>, param: Param<WriteParams>) =>
  db.insertInto("secrets_secrets").values({
    id: param("secretId"),
    environment_id: param("environmentId"),
    key: param("key"),
    version: param("version"),
    empty: param("empty"),
    created_at: param("at"),
    updated_at: param("at"),
  })

// The id too, not only the key: a secret deleted and re-created meanwhile is another secret (port rule 10).
const advancing = (db: QueryCreator<Tables>, param: Param<WriteParams>) =>
  db
    .updateTable("secrets_secrets")
    .set({ version: param("version"), empty: param("empty"), updated_at: param("at") })
    .where("id", "=", param("secretId"))
    .where("environment_id", "=", param("environmentId"))
    .where("key", "=", param("key"))
    .where("version", "=", param("expectedVersion"))
    .returning("id")

/**
 * Postgres: the secret created or advanced (`step`), its version and the audit record, in one data-modifying
 * statement; no row comes back when the step wrote nothing. A turn's only write goes this way (`SqlStore.batched`):
 * the batch form below costs Postgres five times as long to plan, which a lone writer would wait for.
 */
const writingAudited = (
  step: (
    db: QueryCreator<Tables>,
    param: Param<WriteParams>,
  ) => ReturnType<typeof advancing> | InsertQueryBuilder<Tables, "secrets_secrets", { id: string }>,
) =>
  prepare<WriteParams & AuditValues>()((db, param) =>
    db
      .with("s", (db) => step(db, param))
      .with("v", (db) =>
        db
          .insertInto("secrets_secret_versions")
          .columns(["secret_id", "version", "value", "user_id", "created_at", "restored_from"])
          .expression((eb) =>
            eb
              .selectFrom("s")
              .select([
                "s.id",
                eb.val(param("version")).as("version"),
                eb.val(param("value")).as("value"),
                eb.val(param("userId")).as("user_id"),
                eb.val(param("at")).as("created_at"),
                eb.val(param("restoredFrom")).as("restored_from"),
              ]),
          ),
      )
      .with("a", (db) =>
        db
          .insertInto("secrets_audit_log")
          .columns(AUDIT_COLUMNS)
          .expression((eb) =>
            eb.selectFrom("s").select(AUDIT_COLUMNS.map((column) => eb.val(param(column)).as(column))),
          ),
      )
      .selectFrom("s")
      .select("id"),
  )

/** How a write's values travel in a batch (`../batchStatement.ts`): the secret's version numbers as integers. */
const WRITE_TYPES: ColumnTypes<WriteParams & AuditValues> = {
  secretId: "text",
  environmentId: "text",
  key: "text",
  expectedVersion: "integer",
  version: "integer",
  value: "text",
  empty: "integer",
  userId: "text",
  at: "text",
  restoredFrom: "integer",
  ...Object.fromEntries(AUDIT_COLUMNS.map((column) => [column, "text"])),
} as ColumnTypes<WriteParams & AuditValues>

/**
 * Postgres: the writes of one turn (`SqlStore.batched`) in one data-modifying statement, one commit for the turn:
 * each secret created (`expectedVersion` 0; skipped when the key exists) or advanced from the version it was read
 * at (by its id too: a secret deleted and re-created meanwhile is another secret), with its version and its audit
 * record. A row comes back, tagged with its call's `n`, for each write that was made; a call without one lost its
 * race, and nothing of it was written.
 *
 * One call per secret: of two writes of one secret in a turn, the later gets no row and starts over from a fresh
 * read, as a writer beaten by another does. The rows advanced are locked first and in one order (`locked`), and
 * the rows created are inserted in one order, so that two turns' statements never wait on each other in a circle.
 */
const writingAuditedBatch = prepare<Columns<WriteParams & AuditValues>>()((db, param) =>
  db
    .with("calls", (db) =>
      db
        .selectFrom(callRows(WRITE_TYPES, param))
        .selectAll()
        .distinctOn(["r.environmentId", "r.key"])
        .orderBy("r.environmentId")
        .orderBy("r.key")
        .orderBy("r.n"),
    )
    .with("locked", (db) =>
      db
        .selectFrom("secrets_secrets as t")
        .innerJoin("calls as r", (join) =>
          join
            .onRef("t.id", "=", "r.secretId")
            .onRef("t.environment_id", "=", "r.environmentId")
            .onRef("t.key", "=", "r.key")
            .onRef("t.version", "=", "r.expectedVersion"),
        )
        .select("t.id")
        .orderBy("t.id")
        .forUpdate("t"),
    )
    .with("advanced", (db) =>
      db
        .updateTable("secrets_secrets as t")
        .from("calls as r")
        .set((eb) => ({ version: eb.ref("r.version"), empty: eb.ref("r.empty"), updated_at: eb.ref("r.at") }))
        .whereRef("t.id", "=", "r.secretId")
        .whereRef("t.version", "=", "r.expectedVersion")
        .where("t.id", "in", (eb) => eb.selectFrom("locked").select("locked.id"))
        .returning("t.id"),
    )
    .with("created", (db) =>
      db
        .insertInto("secrets_secrets")
        .columns(["id", "environment_id", "key", "version", "empty", "created_at", "updated_at"])
        .expression((eb) =>
          eb
            .selectFrom("calls as r")
            .select((r) => [
              "r.secretId",
              "r.environmentId",
              "r.key",
              "r.version",
              "r.empty",
              "r.at",
              r.ref("r.at").as("updated_at"),
            ])
            .where("r.expectedVersion", "=", 0)
            .orderBy("r.environmentId")
            .orderBy("r.key"),
        )
        .onConflict((conflict) => conflict.columns(["environment_id", "key"]).doNothing())
        .returning("id"),
    )
    .with("written", (db) => db.selectFrom("advanced").select("id").unionAll(db.selectFrom("created").select("id")))
    .with("versions", (db) =>
      db
        .insertInto("secrets_secret_versions")
        .columns(["secret_id", "version", "value", "user_id", "created_at", "restored_from"])
        .expression((eb) =>
          eb
            .selectFrom("written")
            .innerJoin("calls as r", "r.secretId", "written.id")
            .select(["r.secretId", "r.version", "r.value", "r.userId", "r.at", "r.restoredFrom"]),
        ),
    )
    .with("logged", (db) =>
      db
        .insertInto("secrets_audit_log")
        .columns(AUDIT_COLUMNS)
        .expression((eb) =>
          eb
            .selectFrom("written")
            .innerJoin("calls as r", "r.secretId", "written.id")
            .select(AUDIT_COLUMNS.map((column) => sql.ref(`r.${column}`).as(column))),
        ),
    )
    .selectFrom("written")
    .innerJoin("calls as r", "r.secretId", "written.id")
    .select(["r.n", "written.id"]),
)

/** The hot path's writes (issue 10), each built once. */
export const writes = {
  find: prepare<{ environmentId: string; key: string }>()((db, param) =>
    db
      .selectFrom("secrets_secrets")
      .selectAll()
      .where("environment_id", "=", param("environmentId"))
      .where("key", "=", param("key")),
  ),
  create: prepare<WriteParams>()(creating),
  advance: prepare<WriteParams>()(advancing),
  version: prepare<WriteParams>()((db, param) =>
    db.insertInto("secrets_secret_versions").values({
      secret_id: param("secretId"),
      version: param("version"),
      value: param("value"),
      user_id: param("userId"),
      created_at: param("at"),
      restored_from: param("restoredFrom"),
    }),
  ),
  createAudited: writingAudited((db, param) =>
    creating(db, param)
      .onConflict((conflict) => conflict.columns(["environment_id", "key"]).doNothing())
      .returning("id"),
  ),
  advanceAudited: writingAudited(advancing),
  audited: writingAuditedBatch,
}

/** The hot path's reads (issue 10), each built once: the current version or a given one, audited or not. */
export const reads = {
  current: prepare<ReadParams>()(reading(false)),
  atVersion: prepare<ReadParams>()(reading(true)),
  currentAudited: readingAudited(false),
  atVersionAudited: readingAudited(true),
}

export interface ProjectEnvironmentParams {
  readonly slug: string
  readonly userId: string
  readonly name: string
}

export interface ReadAtParams extends ProjectEnvironmentParams {
  readonly key: string
  /** An API key's project, or null for any project the user is in. */
  readonly projectId: string | null
}

/** A user's projects as they see them: each with their role in it. */
export const selectAccess = (db: QueryCreator<Tables>, userId: string) =>
  db
    .selectFrom("secrets_projects")
    .innerJoin("secrets_members", (join) =>
      join.onRef("secrets_members.project_id", "=", "secrets_projects.id").on("secrets_members.user_id", "=", userId),
    )
    .select([...projectColumns, "secrets_members.role"])

/** The project as the member sees it, with the asked environment's columns (null when it has none). */
const selectProjectEnvironment = (db: QueryCreator<Tables>, param: Param<ProjectEnvironmentParams>) =>
  selectAccess(db, param("userId"))
    .leftJoin("secrets_environments as e", (join) =>
      join.onRef("e.project_id", "=", "secrets_projects.id").on("e.name", "=", param("name")),
    )
    .select(["e.id as environment_id", "e.name as environment_name", "e.created_at as environment_created_at"])
    .where("secrets_projects.slug", "=", param("slug"))

/** The same row with the secret a write advances. */
const selectProjectEnvironmentSecret = (
  db: QueryCreator<Tables>,
  param: Param<ProjectEnvironmentParams & { key: string }>,
) =>
  selectProjectEnvironment(db, param)
    .leftJoin("secrets_secrets as s", (join) =>
      join.onRef("s.environment_id", "=", "e.id").on("s.key", "=", param("key")),
    )
    .select([
      "s.id as secret_id",
      "s.key as secret_key",
      "s.version as secret_version",
      "s.empty as secret_empty",
      "s.created_at as secret_created_at",
      "s.updated_at as secret_updated_at",
    ])

/**
 * The audited read by path (`readSecretAt`): the same row with the current version's columns, in the API key's
 * project only when one is given.
 */
const selectReadAt = (db: QueryCreator<Tables>, param: Param<ReadAtParams>) =>
  selectProjectEnvironmentSecret(db, param)
    .leftJoin("secrets_secret_versions as v", (join) =>
      join.onRef("v.secret_id", "=", "s.id").onRef("v.version", "=", "s.version"),
    )
    .select([
      "v.version as sealed_version",
      "v.value as sealed_value",
      "v.user_id as sealed_user_id",
      "v.created_at as sealed_created_at",
    ])
    .where((eb) =>
      eb("secrets_projects.id", "=", eb.fn.coalesce(eb.val(param("projectId")), eb.ref("secrets_projects.id"))),
    )

/**
 * Postgres: the read and its record in one data-modifying statement, the record's project and environment taken
 * from the row found, and written only when a current version was: a turn's only read (`SqlStore.batched`).
 */
const readingAtAudited = (db: QueryCreator<Tables>, param: Param<ReadAtParams & AuditDraftValues>) =>
  db
    .with("found", (db) => selectReadAt(db, param))
    .with("logged", (db) =>
      db
        .insertInto("secrets_audit_log")
        .columns(AUDIT_COLUMNS)
        .expression((eb) =>
          eb
            .selectFrom("found")
            .select((found) =>
              AUDIT_COLUMNS.map((column) =>
                column === "project_id"
                  ? found.ref("found.id").as(column)
                  : column === "environment_id"
                    ? found.ref("found.environment_id").as(column)
                    : found.val(param(column)).as(column),
              ),
            )
            .where("found.sealed_version", "is not", null),
        ),
    )
    .selectFrom("found")
    .selectAll()

/** How a reach's values travel in a batch (`../batchStatement.ts`): all as text. */
const REACH_TYPES: ColumnTypes<ProjectEnvironmentParams & { key: string }> = {
  slug: "text",
  userId: "text",
  name: "text",
  key: "text",
}

/** Postgres: the reaches of one turn's writes (`SqlStore.batched`), each call's row tagged with its `n`. */
const selectProjectEnvironmentSecretBatch = prepare<Columns<ProjectEnvironmentParams & { key: string }>>()(
  (db, param) =>
    db
      .selectFrom(callRows(REACH_TYPES, param))
      .innerJoinLateral(selectProjectEnvironmentSecret(db, fromRow()).as("f"), (join) => join.onTrue())
      .select("r.n")
      .selectAll("f"),
)

/** How an audited read's values travel in a batch (`../batchStatement.ts`): all as text. */
const READ_AT_AUDITED_TYPES = Object.fromEntries(
  ["slug", "userId", "name", "key", "projectId", ...AUDIT_DRAFT_COLUMNS].map((name) => [name, "text"]),
) as ColumnTypes<ReadAtParams & AuditDraftValues>

/**
 * Postgres: the audited reads by path of one turn (`SqlStore.batched`) and their records in one data-modifying
 * statement, one commit for the turn. Each call's row (`selectReadAt` on its values) comes back tagged with its `n`;
 * its record, with the project and environment found, is written only when a current version was.
 */
const readingAtAuditedBatch = prepare<Columns<ReadAtParams & AuditDraftValues>>()((db, param) =>
  db
    .with("calls", (db) => db.selectFrom(callRows(READ_AT_AUDITED_TYPES, param)).selectAll())
    .with("found", (qc) =>
      qc
        .selectFrom("calls as r")
        .innerJoinLateral(selectReadAt(db, fromRow<ReadAtParams>()).as("f"), (join) => join.onTrue())
        .select("r.n")
        .selectAll("f"),
    )
    .with("logged", (db) =>
      db
        .insertInto("secrets_audit_log")
        .columns(AUDIT_COLUMNS)
        .expression((eb) =>
          eb
            .selectFrom("found")
            .innerJoin("calls as r", "r.n", "found.n")
            .select((found) =>
              AUDIT_COLUMNS.map((column) =>
                column === "project_id"
                  ? found.ref("found.id").as(column)
                  : column === "environment_id"
                    ? found.ref("found.environment_id").as(column)
                    : sql.ref(`r.${column}`).as(column),
              ),
            )
            .where("found.sealed_version", "is not", null),
        ),
    )
    .selectFrom("found")
    .selectAll(),
)

/**
 * Every read and write of a secret by path starts here (issue 10), each built once; a write's with the secret it
 * advances.
 */
export const reach = {
  projectEnvironment: prepare<ProjectEnvironmentParams>()(selectProjectEnvironment),
  projectEnvironmentSecret: prepare<ProjectEnvironmentParams & { key: string }>()(selectProjectEnvironmentSecret),
  projectEnvironmentSecretBatch: selectProjectEnvironmentSecretBatch,
  readAt: prepare<ReadAtParams>()(selectReadAt),
  readAtAudited: prepare<ReadAtParams & AuditDraftValues>()(readingAtAudited),
  readAtAuditedBatch: readingAtAuditedBatch,
}
