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
import { Effect } from "effect"
import type { Kysely, QueryCreator } from "kysely"
import * as SqlStore from "../SqlStore.js"
import type { Tables } from "../Tables.js"
import type { SecretsAuditLogRow } from "../tables/secrets.js"
import type { Audited } from "./audit.js"
import { projectGone } from "./projects.js"
import { auditRow, toEnvironment, toSecret } from "./rows.js"

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

/** The audit log's columns, in the order an insert from a select fills them. */
const AUDIT_COLUMNS = [
  "id",
  "project_id",
  "environment_id",
  "user_id",
  "user_email",
  "action",
  "target_key",
  "ip_address",
  "created_at",
] as const satisfies ReadonlyArray<keyof SecretsAuditLogRow>

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
      "s.created_at",
      "s.updated_at",
      "v.version as sealed_version",
      "v.value as sealed_value",
      "v.user_id as sealed_user_id",
      "v.created_at as sealed_created_at",
    ])
    .where("s.environment_id", "=", environmentId)
    .where("s.key", "=", key)

type ReadRow = NonNullable<Awaited<ReturnType<ReturnType<typeof readSecretRow>["executeTakeFirst"]>>>

const toRead = (row: ReadRow) => ({
  secret: toSecret(row),
  sealed:
    row.sealed_version === null || row.sealed_value === null || row.sealed_created_at === null
      ? undefined
      : {
          version: Number(row.sealed_version),
          value: row.sealed_value,
          userId: row.sealed_user_id,
          createdAt: fromIso(row.sealed_created_at),
        },
})

export const environments = (
  store: SqlStore.SqlStore,
  { append, audited, auditedChange }: Audited,
): EnvironmentsPart => {
  const { statement, query } = store

  const selectSecret = (db: Kysely<Tables>, environmentId: string, key: string) =>
    db
      .selectFrom("secrets_secrets")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("key", "=", key)
      .executeTakeFirst()

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
      query((db) => selectSecret(db, environmentId, key)).pipe(
        Effect.map((row) => (row === undefined ? undefined : toSecret(row))),
      ),

    readSecret: ({ environmentId, key, version, audit }) => {
      const read = (db: QueryCreator<Tables>) => readSecretRow(db, environmentId, key, version)
      const answer = (row: ReadRow | undefined) => (row === undefined ? undefined : toRead(row))
      // Postgres: the read and its audit record are one statement (a data-modifying CTE), so one round trip and
      // all or nothing by itself. SQLite has no such CTE: there it is one transaction of the two statements.
      if (audit !== undefined && store.database.dialect === "postgres") {
        return query((db) =>
          db
            .with("found", read)
            .with("logged", (db) =>
              db
                .insertInto("secrets_audit_log")
                .columns(AUDIT_COLUMNS)
                .expression((eb) => {
                  const row = auditRow(audit)
                  return eb
                    .selectFrom("found")
                    .select(AUDIT_COLUMNS.map((column) => eb.val(row[column]).as(column)))
                    .where("found.sealed_version", "is not", null)
                }),
            )
            .selectFrom("found")
            .selectAll()
            .executeTakeFirst(),
        ).pipe(Effect.map(answer))
      }
      return store.transaction(
        Effect.gen(function* () {
          const row = yield* statement((db) => read(db).executeTakeFirst())
          if (row?.sealed_version != null && audit !== undefined) yield* append(audit)
          return answer(row)
        }),
      )
    },

    writeSecret: (input) => {
      const conflict = () =>
        new VersionConflict({ message: `Secret "${input.key}" changed while it was being written; try again` })
      const version = input.expectedVersion + 1
      const at = toIso(input.at)
      const createOrAdvance =
        input.expectedVersion === 0
          ? statement((db) =>
              db
                .insertInto("secrets_secrets")
                .values({
                  id: input.secretId,
                  environment_id: input.environmentId,
                  key: input.key,
                  version,
                  created_at: at,
                  updated_at: at,
                })
                .execute(),
            ).pipe(
              SqlStore.failOn("UniqueViolation", conflict),
              SqlStore.failOn("ForeignKeyViolation", environmentGone),
              Effect.as(input.secretId),
            )
          : statement((db) =>
              db
                .updateTable("secrets_secrets")
                .set({ version, updated_at: at })
                .where("id", "=", input.secretId)
                .where("environment_id", "=", input.environmentId)
                .where("key", "=", input.key)
                .where("version", "=", input.expectedVersion)
                .returning("id")
                .executeTakeFirst(),
            ).pipe(
              Effect.flatMap((updated) =>
                updated === undefined ? Effect.fail(conflict()) : Effect.succeed(updated.id),
              ),
            )
      if (store.database.dialect === "postgres") {
        // One data-modifying statement: the secret created or advanced, its version and the audit record, all or
        // nothing by itself, so one round trip and no BEGIN/COMMIT. A concurrent writer that advanced the row first
        // makes the `update` match nothing (Postgres re-checks `version` after the row lock), and a concurrent
        // creator makes the `insert` skip: either way no row comes back, and nothing was written.
        const row = auditRow(input.audit)
        return statement((db) =>
          db
            .with("s", (db) =>
              input.expectedVersion === 0
                ? db
                    .insertInto("secrets_secrets")
                    .values({
                      id: input.secretId,
                      environment_id: input.environmentId,
                      key: input.key,
                      version,
                      created_at: at,
                      updated_at: at,
                    })
                    .onConflict((conflict) => conflict.columns(["environment_id", "key"]).doNothing())
                    .returning("id")
                : db
                    .updateTable("secrets_secrets")
                    .set({ version, updated_at: at })
                    .where("id", "=", input.secretId)
                    .where("environment_id", "=", input.environmentId)
                    .where("key", "=", input.key)
                    .where("version", "=", input.expectedVersion)
                    .returning("id"),
            )
            .with("v", (db) =>
              db
                .insertInto("secrets_secret_versions")
                .columns(["secret_id", "version", "value", "user_id", "created_at"])
                .expression((eb) =>
                  eb
                    .selectFrom("s")
                    .select([
                      "s.id",
                      eb.val(version).as("version"),
                      eb.val(input.value).as("value"),
                      eb.val(input.userId).as("user_id"),
                      eb.val(at).as("created_at"),
                    ]),
                ),
            )
            .with("a", (db) =>
              db
                .insertInto("secrets_audit_log")
                .columns(AUDIT_COLUMNS)
                .expression((eb) =>
                  eb.selectFrom("s").select(AUDIT_COLUMNS.map((column) => eb.val(row[column]).as(column))),
                ),
            )
            .selectFrom("s")
            .select("id")
            .executeTakeFirst(),
        ).pipe(
          SqlStore.failOn("UniqueViolation", conflict),
          SqlStore.failOn("ForeignKeyViolation", environmentGone),
          SqlStore.failOn("TransactionConflict", conflict),
          SqlStore.settle,
          Effect.flatMap((written) =>
            written === undefined ? Effect.fail(conflict()) : Effect.succeed({ secretId: written.id, version }),
          ),
        )
      }
      return store
        .attemptTransaction(
          Effect.gen(function* () {
            const secretId = yield* createOrAdvance
            yield* statement((db) =>
              db
                .insertInto("secrets_secret_versions")
                .values({
                  secret_id: secretId,
                  version,
                  value: input.value,
                  user_id: input.userId,
                  created_at: at,
                })
                .execute(),
            ).pipe(SqlStore.failOn("UniqueViolation", conflict))
            yield* append(input.audit)
            return { secretId, version }
          }),
        )
        .pipe(
          // A deadlock that outlasted the retries is contention like any other: let the use case start over.
          SqlStore.failOn("TransactionConflict", conflict),
          SqlStore.settle,
        )
    },

    deleteSecret: ({ environmentId, key, audit }) =>
      auditedChange(audit, (db) =>
        db
          .deleteFrom("secrets_secrets")
          .where("environment_id", "=", environmentId)
          .where("key", "=", key)
          .executeTakeFirst(),
      ),

    listVersions: (secretId) =>
      query((db) =>
        db
          .selectFrom("secrets_secret_versions")
          .select(["version", "created_at", "user_id"])
          .where("secret_id", "=", secretId)
          .execute(),
      ).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({
            version: Number(row.version),
            createdAt: fromIso(row.created_at),
            userId: row.user_id,
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
