/**
 * Environments and the secrets in them, on SQL.
 *
 * Versions (port rule 3): an update moves `secrets_secrets.version` from the expected value to the next one with a
 * conditional `update … where id = secret and version = expected` (the id: not a secret re-created under the key); on Postgres a concurrent writer blocks on the row lock and then
 * finds the condition false, and on SQLite transactions run one at a time. Creating a key relies on the unique
 * (environment, key); the primary key (secret, version) of the history is the backstop. Every way of losing the
 * race answers `VersionConflict`, after which the use case re-reads and tries again. The write is one compound
 * operation so that it costs one transaction (on Postgres one statement, a data-modifying CTE: one round trip on
 * the hot path of issue 10); it compares a version and decides nothing else.
 */
import { fromIso, toIso } from "@coffer/kernel"
import { EnvironmentExists, EnvironmentGone, type SecretStore, VersionConflict } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import { MAX_INTEGER } from "../integerColumn.js"
import * as SqlStore from "../SqlStore.js"
import type { Audited } from "./audit.js"
import { projectGone } from "./projects.js"
import { auditRow, sealedOf, toEnvironment, toSecret } from "./rows.js"
import { type ReadRow, reads, type WriteParams, writes } from "./statements.js"

type Store = SecretStore.SecretStore["Service"]

const environmentGone = () => new EnvironmentGone()

export type EnvironmentsPart = Pick<
  Store,
  | "listEnvironments"
  | "findEnvironment"
  | "createEnvironment"
  | "deleteEnvironment"
  | "listSecrets"
  | "findSecret"
  | "readSecret"
  | "writeSecret"
  | "deleteSecret"
  | "listVersions"
  | "exportSecrets"
>

const toRead = (row: ReadRow) => ({ secret: toSecret(row), sealed: sealedOf(row) })

export const environments = (
  store: SqlStore.SqlStore,
  { append, audited, auditedChange }: Audited,
): EnvironmentsPart => {
  const { statement, query, first, run } = store
  // Postgres: the writes of one turn are one statement, one commit (`SqlStore.batched`).
  const writeAudited = store.batched(writes.audited, (params) =>
    params.expectedVersion === 0 ? writes.createAudited : writes.advanceAudited,
  )

  return {
    listEnvironments: (projectId) =>
      query((db) =>
        db.selectFrom("secrets_environments").selectAll().where("project_id", "=", projectId).execute(),
      ).pipe(Effect.map((rows) => rows.map(toEnvironment))),

    findEnvironment: (projectId, name) =>
      query((db) =>
        db
          .selectFrom("secrets_environments")
          .selectAll()
          .where("project_id", "=", projectId)
          .where("name", "=", name)
          .executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toEnvironment(row)))),

    createEnvironment: ({ environment, audit }) =>
      audited(
        audit,
        statement((db) =>
          db
            .insertInto("secrets_environments")
            .values({
              id: environment.id,
              project_id: environment.projectId,
              name: environment.name,
              created_at: toIso(environment.createdAt),
            })
            .execute(),
        ).pipe(
          SqlStore.failOn(
            "UniqueViolation",
            () =>
              new EnvironmentExists({
                name: environment.name,
                message: `An environment named "${environment.name}" exists in this project`,
              }),
          ),
          SqlStore.failOn("ForeignKeyViolation", projectGone),
          Effect.asVoid,
        ),
      ),

    deleteEnvironment: ({ environmentId, audit }) =>
      auditedChange(audit, (db) =>
        db.deleteFrom("secrets_environments").where("id", "=", environmentId).executeTakeFirst(),
      ),

    listSecrets: (environmentId) =>
      query((db) =>
        db.selectFrom("secrets_secrets").selectAll().where("environment_id", "=", environmentId).execute(),
      ).pipe(Effect.map((rows) => rows.map(toSecret))),

    findSecret: (environmentId, key) =>
      SqlStore.settle(first(writes.find, { environmentId, key })).pipe(
        Effect.map((row) => (row === undefined ? undefined : toSecret(row))),
      ),

    readSecret: ({ environmentId, key, version, audit }) => {
      // A version past the column's range is none stored, as is 0, which Postgres takes as a parameter.
      const params = { environmentId, key, version: version === undefined || version > MAX_INTEGER ? 0 : version }
      const answer = (row: ReadRow | undefined) => (row === undefined ? undefined : toRead(row))
      // SQLite has no data-modifying CTE: there the read and its record are one transaction of two statements.
      if (audit !== undefined && store.database.dialect === "postgres") {
        const read = version === undefined ? reads.currentAudited : reads.atVersionAudited
        return SqlStore.settle(first(read, { ...params, ...auditRow(audit) })).pipe(Effect.map(answer))
      }
      const read = version === undefined ? reads.current : reads.atVersion
      return store.transaction(
        Effect.gen(function* () {
          const row = yield* first(read, params)
          if (row?.sealed_version != null && audit !== undefined) yield* append(audit)
          return answer(row)
        }),
      )
    },

    writeSecret: (input) => {
      const conflict = () =>
        new VersionConflict({ message: `Secret "${input.key}" changed while it was being written; try again` })
      const params: WriteParams = {
        secretId: input.secretId,
        environmentId: input.environmentId,
        key: input.key,
        expectedVersion: input.expectedVersion,
        version: input.expectedVersion + 1,
        value: input.value,
        empty: input.empty ? 1 : 0,
        userId: input.userId,
        at: toIso(input.at),
        restoredFrom: input.restoredFrom ?? null,
      }
      const creating = input.expectedVersion === 0
      if (store.database.dialect === "postgres") {
        // One data-modifying statement for the turn's writes: each secret created or advanced, its version and the
        // audit record, all or nothing by itself, so no BEGIN/COMMIT. A concurrent writer that advanced the row
        // first makes the `update` match nothing (Postgres re-checks `version` after the row lock), and a concurrent
        // creator makes the `insert` skip: either way no row comes back for this call, and nothing of it was written.
        return writeAudited({ ...params, ...auditRow(input.audit) }).pipe(
          Effect.map((rows) => rows[0]),
          SqlStore.failOn("UniqueViolation", conflict),
          SqlStore.failOn("ForeignKeyViolation", environmentGone),
          SqlStore.failOn("TransactionConflict", conflict),
          SqlStore.settle,
          Effect.flatMap((written) =>
            written === undefined
              ? Effect.fail(conflict())
              : Effect.succeed({ secretId: written.id, version: params.version }),
          ),
        )
      }
      const createOrAdvance = creating
        ? run(writes.create, params).pipe(
            SqlStore.failOn("UniqueViolation", conflict),
            SqlStore.failOn("ForeignKeyViolation", environmentGone),
            Effect.as(input.secretId),
          )
        : first(writes.advance, params).pipe(
            Effect.flatMap((updated) => (updated === undefined ? Effect.fail(conflict()) : Effect.succeed(updated.id))),
          )
      return store
        .attemptTransaction(
          Effect.gen(function* () {
            const secretId = yield* createOrAdvance
            yield* run(writes.version, { ...params, secretId }).pipe(SqlStore.failOn("UniqueViolation", conflict))
            yield* append(input.audit)
            return { secretId, version: params.version }
          }),
        )
        .pipe(
          // A deadlock that outlasted the retries is contention like any other: let the use case start over.
          SqlStore.failOn("TransactionConflict", conflict),
          SqlStore.settle,
        )
    },

    deleteSecret: ({ environmentId, key, audit, expected }) =>
      auditedChange(audit, (db) => {
        const matching = db
          .deleteFrom("secrets_secrets")
          .where("environment_id", "=", environmentId)
          .where("key", "=", key)
        return (
          expected === undefined
            ? matching
            : matching.where("id", "=", expected.secretId).where("version", "=", expected.version)
        ).executeTakeFirst()
      }),

    listVersions: (secretId) =>
      query((db) =>
        db
          .selectFrom("secrets_secret_versions")
          .select(["version", "created_at", "user_id", "restored_from"])
          .where("secret_id", "=", secretId)
          .execute(),
      ).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({
            version: Number(row.version),
            createdAt: fromIso(row.created_at),
            userId: row.user_id,
            restoredFrom: row.restored_from === null ? null : Number(row.restored_from),
          })),
        ),
      ),

    exportSecrets: ({ environmentId, audit }) =>
      audited(
        audit,
        statement((db) =>
          db
            .selectFrom("secrets_secrets")
            .innerJoin("secrets_secret_versions", (join) =>
              join
                .onRef("secrets_secret_versions.secret_id", "=", "secrets_secrets.id")
                .onRef("secrets_secret_versions.version", "=", "secrets_secrets.version"),
            )
            .select([
              "secrets_secrets.id",
              "secrets_secrets.key",
              "secrets_secrets.version",
              "secrets_secret_versions.value",
            ])
            .where("secrets_secrets.environment_id", "=", environmentId)
            .execute(),
        ).pipe(
          Effect.map((rows) =>
            rows.map((row) => ({ secretId: row.id, key: row.key, version: Number(row.version), value: row.value })),
          ),
        ),
      ),
  }
}
