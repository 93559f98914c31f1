/**
 * The SecretStore port on SQL (migration `0004_secrets`), one Kysely implementation for SQLite and Postgres.
 *
 * How the port's rules are kept:
 * - Each write and its audit record, and each audited read and its record, run in one transaction
 *   (`SqlDatabase.withTransaction`), so they commit together or not at all (rules 1 and 2).
 * - Versions (rule 3): an update moves `secrets_secrets.version` from the expected value to the next one with a
 *   conditional `update … where version = expected`; on Postgres a concurrent writer blocks on the row lock and
 *   then finds the condition false, and on SQLite transactions run one at a time. Creating a key relies on the
 *   unique (environment, key); the primary key (secret, version) of the history is the backstop. Every way of
 *   losing the race answers `VersionConflict`, after which the use case re-reads and tries again.
 * - Invites (rule 7): a conditional `update … where used_at is null and expires_at > now` uses the invite up;
 *   the membership insert that follows fails on the primary key when the person is in already, and the rollback
 *   leaves the invite pending.
 * - Order (rule 6) is applied in JavaScript where the database's collation could differ from code unit order
 *   (Postgres collations ignore punctuation); the audit log is paged in SQL with `collate "C"` on Postgres.
 *
 * A failed statement that is neither an outage nor a constraint the port names is a bug in this file, so it
 * becomes a defect (500); Postgres serialization failures and deadlocks rerun the whole transaction a few times
 * first. An unreachable database stays `StoreUnavailable` (503).
 */
import { NotFound } from "@coffer/kernel"
import {
  AlreadyMember,
  type AuditAction,
  EnvironmentExists,
  type KeyScope,
  type MemberRole,
  ProjectExists,
  type Role,
  SecretStore,
  VersionConflict,
} from "@coffer/secrets"
import { Effect, Layer } from "effect"
import { type Kysely, sql } from "kysely"
import { SqlDatabase } from "./SqlDatabase.js"
import * as SqlStore from "./SqlStore.js"
import type { Tables } from "./Tables.js"
import type {
  SecretsApiKeyRow,
  SecretsAuditLogRow,
  SecretsEnvironmentRow,
  SecretsInviteRow,
  SecretsProjectRow,
  SecretsSecretRow,
} from "./tables/secrets.js"

type Store = SecretStore.SecretStore["Service"]

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const newestFirst = <A extends { readonly createdAt: string; readonly id: string }>(a: A, b: A) =>
  byCodeUnits(b.createdAt, a.createdAt) || byCodeUnits(b.id, a.id)

const toProject = (row: SecretsProjectRow): SecretStore.ProjectRecord => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  ownerId: row.owner_id,
  createdAt: row.created_at,
  dataKey: row.data_key,
})

const toEnvironment = (row: SecretsEnvironmentRow): SecretStore.EnvironmentRecord => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  createdAt: row.created_at,
})

const toInvite = (row: SecretsInviteRow): SecretStore.InviteRecord => ({
  id: row.id,
  projectId: row.project_id,
  role: row.role as MemberRole,
  tokenHash: row.token_hash,
  createdBy: row.created_by,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  usedAt: row.used_at,
})

const toSecret = (row: SecretsSecretRow): SecretStore.SecretRecord => ({
  id: row.id,
  environmentId: row.environment_id,
  key: row.key,
  version: Number(row.version),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const toApiKey = (row: SecretsApiKeyRow): SecretStore.ApiKeyRecord => ({
  id: row.id,
  projectId: row.project_id,
  userId: row.user_id,
  name: row.name,
  keyPrefix: row.key_prefix,
  keyHash: row.key_hash,
  scope: row.scope as KeyScope,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
  createdAt: row.created_at,
})

const toAudit = (row: SecretsAuditLogRow): SecretStore.AuditRecord => ({
  id: row.id,
  projectId: row.project_id,
  environmentId: row.environment_id,
  userId: row.user_id,
  userEmail: row.user_email,
  action: row.action as AuditAction,
  targetKey: row.target_key,
  ipAddress: row.ip_address,
  createdAt: row.created_at,
})

const auditRow = (entry: SecretStore.AuditRecord): SecretsAuditLogRow => ({
  id: entry.id,
  project_id: entry.projectId,
  environment_id: entry.environmentId,
  user_id: entry.userId,
  user_email: entry.userEmail,
  action: entry.action,
  target_key: entry.targetKey,
  ip_address: entry.ipAddress,
  created_at: entry.createdAt,
})

const changed = (result: { readonly numUpdatedRows?: bigint; readonly numDeletedRows?: bigint }) =>
  (result.numUpdatedRows ?? result.numDeletedRows ?? 0n) > 0n

const projectColumns = [
  "secrets_projects.id",
  "secrets_projects.name",
  "secrets_projects.slug",
  "secrets_projects.owner_id",
  "secrets_projects.data_key",
  "secrets_projects.created_at",
] as const

export const make: Effect.Effect<Store, never, SqlDatabase> = Effect.gen(function* () {
  const database = yield* SqlDatabase

  const { statement: query, query: read, transaction, attemptTransaction } = SqlStore.make(database)

  const insertAudit = (entry: SecretStore.AuditRecord) =>
    query((db) => db.insertInto("secrets_audit_log").values(auditRow(entry)).execute())

  const parentGone = (what: string) => () => new NotFound({ message: `${what} no longer exists` })

  const selectAccess = (db: Kysely<Tables>, userId: string) =>
    db
      .selectFrom("secrets_projects")
      .innerJoin("secrets_members", (join) =>
        join.onRef("secrets_members.project_id", "=", "secrets_projects.id").on("secrets_members.user_id", "=", userId),
      )
      .select([...projectColumns, "secrets_members.role"])

  const toAccess = (row: SecretsProjectRow & { role: string }): SecretStore.ProjectAccess => ({
    project: toProject(row),
    role: row.role as Role,
  })

  const selectSecret = (db: Kysely<Tables>, environmentId: string, key: string) =>
    db
      .selectFrom("secrets_secrets")
      .selectAll()
      .where("environment_id", "=", environmentId)
      .where("key", "=", key)
      .executeTakeFirst()

  const pendingInvites = (db: Kysely<Tables>, now: string) =>
    db.selectFrom("secrets_invites").selectAll().where("used_at", "is", null).where("expires_at", ">", now)

  // The audit log is paged by the database, so its order must not depend on the collation.
  const orderExpression = (column: "created_at" | "id") =>
    database.dialect === "postgres" ? sql<string>`${sql.ref(column)} collate "C"` : sql<string>`${sql.ref(column)}`

  const store: Store = {
    createProject: ({ project, environments, audit }) =>
      transaction(
        Effect.gen(function* () {
          yield* query((db) =>
            db
              .insertInto("secrets_projects")
              .values({
                id: project.id,
                name: project.name,
                slug: project.slug,
                owner_id: project.ownerId,
                data_key: project.dataKey,
                created_at: project.createdAt,
              })
              .execute(),
          ).pipe(
            SqlStore.failOn(
              "UniqueViolation",
              () =>
                new ProjectExists({ slug: project.slug, message: `A project with the slug "${project.slug}" exists` }),
            ),
          )
          yield* query((db) =>
            db
              .insertInto("secrets_members")
              .values({
                project_id: project.id,
                user_id: project.ownerId,
                role: "owner",
                created_at: project.createdAt,
              })
              .execute(),
          )
          if (environments.length > 0) {
            yield* query((db) =>
              db
                .insertInto("secrets_environments")
                .values(
                  environments.map((environment) => ({
                    id: environment.id,
                    project_id: environment.projectId,
                    name: environment.name,
                    created_at: environment.createdAt,
                  })),
                )
                .execute(),
            )
          }
          yield* insertAudit(audit)
        }),
      ),

    findProject: (slug, userId) =>
      read((db) => selectAccess(db, userId).where("secrets_projects.slug", "=", slug).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? undefined : toAccess(row))),
      ),

    findProjectById: (projectId, userId) =>
      read((db) => selectAccess(db, userId).where("secrets_projects.id", "=", projectId).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? undefined : toAccess(row))),
      ),

    listProjects: (userId) =>
      read((db) => selectAccess(db, userId).execute()).pipe(
        Effect.map((rows) => rows.map(toAccess).sort((a, b) => byCodeUnits(a.project.slug, b.project.slug))),
      ),

    deleteProject: ({ projectId, audit }) =>
      transaction(
        Effect.gen(function* () {
          const result = yield* query((db) =>
            db.deleteFrom("secrets_projects").where("id", "=", projectId).executeTakeFirst(),
          )
          if (!changed(result)) return false
          yield* insertAudit(audit)
          return true
        }),
      ),

    listMembers: (projectId) =>
      read((db) => db.selectFrom("secrets_members").selectAll().where("project_id", "=", projectId).execute()).pipe(
        Effect.map((rows) =>
          rows
            .map((row) => ({ userId: row.user_id, role: row.role as Role, createdAt: row.created_at }))
            .sort(
              (a, b) =>
                Number(b.role === "owner") - Number(a.role === "owner") ||
                byCodeUnits(a.createdAt, b.createdAt) ||
                byCodeUnits(a.userId, b.userId),
            ),
        ),
      ),

    setMemberRole: ({ projectId, userId, role, audit }) =>
      transaction(
        Effect.gen(function* () {
          const result = yield* query((db) =>
            db
              .updateTable("secrets_members")
              .set({ role })
              .where("project_id", "=", projectId)
              .where("user_id", "=", userId)
              .where("role", "!=", "owner")
              .executeTakeFirst(),
          )
          if (!changed(result)) return false
          yield* insertAudit(audit)
          return true
        }),
      ),

    removeMember: ({ projectId, userId, audit }) =>
      transaction(
        Effect.gen(function* () {
          const result = yield* query((db) =>
            db
              .deleteFrom("secrets_members")
              .where("project_id", "=", projectId)
              .where("user_id", "=", userId)
              .where("role", "!=", "owner")
              .executeTakeFirst(),
          )
          if (!changed(result)) return false
          yield* query((db) =>
            db
              .deleteFrom("secrets_api_keys")
              .where("project_id", "=", projectId)
              .where("user_id", "=", userId)
              .execute(),
          )
          yield* insertAudit(audit)
          return true
        }),
      ),

    createInvite: ({ invite, audit }) =>
      transaction(
        Effect.gen(function* () {
          yield* query((db) =>
            db
              .insertInto("secrets_invites")
              .values({
                id: invite.id,
                project_id: invite.projectId,
                role: invite.role,
                token_hash: invite.tokenHash,
                created_by: invite.createdBy,
                created_at: invite.createdAt,
                expires_at: invite.expiresAt,
                used_at: invite.usedAt,
                used_by: null,
              })
              .execute(),
          ).pipe(SqlStore.failOn("ForeignKeyViolation", parentGone("The project")))
          yield* insertAudit(audit)
        }),
      ),

    listInvites: (projectId, now) =>
      read((db) => pendingInvites(db, now).where("project_id", "=", projectId).execute()).pipe(
        Effect.map((rows) => rows.map(toInvite).sort(newestFirst)),
      ),

    findInvite: (tokenHash) =>
      read((db) =>
        db.selectFrom("secrets_invites").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toInvite(row)))),

    deleteInvite: ({ projectId, inviteId, now, audit }) =>
      transaction(
        Effect.gen(function* () {
          const result = yield* query((db) =>
            db
              .deleteFrom("secrets_invites")
              .where("id", "=", inviteId)
              .where("project_id", "=", projectId)
              .where("used_at", "is", null)
              .where("expires_at", ">", now)
              .executeTakeFirst(),
          )
          if (!changed(result)) return false
          yield* insertAudit(audit)
          return true
        }),
      ),

    acceptInvite: ({ inviteId, userId, now, audit }) =>
      transaction(
        Effect.gen(function* () {
          const invite = yield* query((db) =>
            db
              .updateTable("secrets_invites")
              .set({ used_at: now, used_by: userId })
              .where("id", "=", inviteId)
              .where("used_at", "is", null)
              .where("expires_at", ">", now)
              .returning(["project_id", "role"])
              .executeTakeFirst(),
          )
          if (invite === undefined) return undefined
          yield* query((db) =>
            db
              .insertInto("secrets_members")
              .values({ project_id: invite.project_id, user_id: userId, role: invite.role, created_at: now })
              .execute(),
          ).pipe(
            SqlStore.failOn("UniqueViolation", () => new AlreadyMember({ message: "You are already in this project" })),
          )
          const project = yield* query((db) =>
            db.selectFrom("secrets_projects").selectAll().where("id", "=", invite.project_id).executeTakeFirstOrThrow(),
          )
          yield* insertAudit(audit)
          return toProject(project)
        }),
      ),

    listEnvironments: (projectId) =>
      read((db) =>
        db.selectFrom("secrets_environments").selectAll().where("project_id", "=", projectId).execute(),
      ).pipe(Effect.map((rows) => rows.map(toEnvironment).sort((a, b) => byCodeUnits(a.name, b.name)))),

    findEnvironment: (projectId, name) =>
      read((db) =>
        db
          .selectFrom("secrets_environments")
          .selectAll()
          .where("project_id", "=", projectId)
          .where("name", "=", name)
          .executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toEnvironment(row)))),

    createEnvironment: ({ environment, audit }) =>
      transaction(
        Effect.gen(function* () {
          yield* query((db) =>
            db
              .insertInto("secrets_environments")
              .values({
                id: environment.id,
                project_id: environment.projectId,
                name: environment.name,
                created_at: environment.createdAt,
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
            SqlStore.failOn("ForeignKeyViolation", parentGone("The project")),
          )
          yield* insertAudit(audit)
        }),
      ),

    deleteEnvironment: ({ environmentId, audit }) =>
      transaction(
        Effect.gen(function* () {
          const result = yield* query((db) =>
            db.deleteFrom("secrets_environments").where("id", "=", environmentId).executeTakeFirst(),
          )
          if (!changed(result)) return false
          yield* insertAudit(audit)
          return true
        }),
      ),

    listSecrets: (environmentId) =>
      read((db) =>
        db.selectFrom("secrets_secrets").selectAll().where("environment_id", "=", environmentId).execute(),
      ).pipe(Effect.map((rows) => rows.map(toSecret).sort((a, b) => byCodeUnits(a.key, b.key)))),

    findSecret: (environmentId, key) =>
      read((db) => selectSecret(db, environmentId, key)).pipe(
        Effect.map((row) => (row === undefined ? undefined : toSecret(row))),
      ),

    readSecret: ({ environmentId, key, version, audit }) =>
      transaction(
        Effect.gen(function* () {
          const row = yield* query((db) => selectSecret(db, environmentId, key))
          if (row === undefined) return undefined
          const secret = toSecret(row)
          const wanted = version ?? secret.version
          const sealed = yield* query((db) =>
            db
              .selectFrom("secrets_secret_versions")
              .selectAll()
              .where("secret_id", "=", secret.id)
              .where("version", "=", wanted)
              .executeTakeFirst(),
          )
          if (sealed !== undefined && audit !== undefined) yield* insertAudit(audit)
          return {
            secret,
            sealed:
              sealed === undefined
                ? undefined
                : {
                    version: Number(sealed.version),
                    value: sealed.value,
                    userId: sealed.user_id,
                    createdAt: sealed.created_at,
                  },
          }
        }),
      ),

    writeSecret: (input) => {
      const conflict = () =>
        new VersionConflict({ message: `Secret "${input.key}" changed while it was being written; try again` })
      const version = input.expectedVersion + 1
      return attemptTransaction(
        Effect.gen(function* () {
          let secretId: string
          if (input.expectedVersion === 0) {
            yield* query((db) =>
              db
                .insertInto("secrets_secrets")
                .values({
                  id: input.newSecretId,
                  environment_id: input.environmentId,
                  key: input.key,
                  version,
                  created_at: input.at,
                  updated_at: input.at,
                })
                .execute(),
            ).pipe(
              SqlStore.failOn("UniqueViolation", conflict),
              SqlStore.failOn("ForeignKeyViolation", parentGone("The environment")),
            )
            secretId = input.newSecretId
          } else {
            const updated = yield* query((db) =>
              db
                .updateTable("secrets_secrets")
                .set({ version, updated_at: input.at })
                .where("environment_id", "=", input.environmentId)
                .where("key", "=", input.key)
                .where("version", "=", input.expectedVersion)
                .returning("id")
                .executeTakeFirst(),
            )
            if (updated === undefined) return yield* conflict()
            secretId = updated.id
          }
          yield* query((db) =>
            db
              .insertInto("secrets_secret_versions")
              .values({ secret_id: secretId, version, value: input.value, user_id: input.userId, created_at: input.at })
              .execute(),
          ).pipe(SqlStore.failOn("UniqueViolation", conflict))
          yield* insertAudit(input.audit)
          return { secretId, version }
        }),
      ).pipe(
        // A deadlock that outlasted the retries is contention like any other: let the use case start over.
        SqlStore.failOn("TransactionConflict", conflict),
        SqlStore.settle,
      )
    },

    deleteSecret: ({ environmentId, key, audit }) =>
      transaction(
        Effect.gen(function* () {
          const result = yield* query((db) =>
            db
              .deleteFrom("secrets_secrets")
              .where("environment_id", "=", environmentId)
              .where("key", "=", key)
              .executeTakeFirst(),
          )
          if (!changed(result)) return false
          yield* insertAudit(audit)
          return true
        }),
      ),

    listVersions: (secretId) =>
      read((db) =>
        db
          .selectFrom("secrets_secret_versions")
          .select(["version", "created_at", "user_id"])
          .where("secret_id", "=", secretId)
          .orderBy("version", "desc")
          .execute(),
      ).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({ version: Number(row.version), createdAt: row.created_at, userId: row.user_id })),
        ),
      ),

    exportSecrets: ({ environmentId, audit }) =>
      transaction(
        Effect.gen(function* () {
          const rows = yield* query((db) =>
            db
              .selectFrom("secrets_secrets")
              .innerJoin("secrets_secret_versions", (join) =>
                join
                  .onRef("secrets_secret_versions.secret_id", "=", "secrets_secrets.id")
                  .onRef("secrets_secret_versions.version", "=", "secrets_secrets.version"),
              )
              .select(["secrets_secrets.key", "secrets_secrets.version", "secrets_secret_versions.value"])
              .where("secrets_secrets.environment_id", "=", environmentId)
              .execute(),
          )
          yield* insertAudit(audit)
          return rows
            .map((row) => ({ key: row.key, version: Number(row.version), value: row.value }))
            .sort((a, b) => byCodeUnits(a.key, b.key))
        }),
      ),

    createApiKey: ({ apiKey, audit }) =>
      transaction(
        Effect.gen(function* () {
          yield* query((db) =>
            db
              .insertInto("secrets_api_keys")
              .values({
                id: apiKey.id,
                project_id: apiKey.projectId,
                user_id: apiKey.userId,
                name: apiKey.name,
                key_prefix: apiKey.keyPrefix,
                key_hash: apiKey.keyHash,
                scope: apiKey.scope,
                expires_at: apiKey.expiresAt,
                last_used_at: apiKey.lastUsedAt,
                created_at: apiKey.createdAt,
              })
              .execute(),
          ).pipe(SqlStore.failOn("ForeignKeyViolation", parentGone("The project")))
          yield* insertAudit(audit)
        }),
      ),

    findApiKeyByHash: (keyHash) =>
      read((db) =>
        db.selectFrom("secrets_api_keys").selectAll().where("key_hash", "=", keyHash).executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toApiKey(row)))),

    findApiKey: (id) =>
      read((db) => db.selectFrom("secrets_api_keys").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? undefined : toApiKey(row))),
      ),

    listApiKeys: ({ userId, projectId }) =>
      read((db) => {
        let statement = db
          .selectFrom("secrets_api_keys")
          .innerJoin("secrets_projects", "secrets_projects.id", "secrets_api_keys.project_id")
          .selectAll("secrets_api_keys")
          .where((where) =>
            where.or([where("secrets_api_keys.user_id", "=", userId), where("secrets_projects.owner_id", "=", userId)]),
          )
        if (projectId !== undefined) statement = statement.where("secrets_api_keys.project_id", "=", projectId)
        return statement.execute()
      }).pipe(Effect.map((rows) => rows.map(toApiKey).sort(newestFirst))),

    rotateApiKey: ({ id, keyHash, keyPrefix, expiresAt, audit }) =>
      transaction(
        Effect.gen(function* () {
          const result = yield* query((db) =>
            db
              .updateTable("secrets_api_keys")
              .set({ key_hash: keyHash, key_prefix: keyPrefix, expires_at: expiresAt })
              .where("id", "=", id)
              .executeTakeFirst(),
          )
          if (!changed(result)) return false
          yield* insertAudit(audit)
          return true
        }),
      ),

    deleteApiKey: ({ id, audit }) =>
      transaction(
        Effect.gen(function* () {
          const result = yield* query((db) => db.deleteFrom("secrets_api_keys").where("id", "=", id).executeTakeFirst())
          if (!changed(result)) return false
          yield* insertAudit(audit)
          return true
        }),
      ),

    touchApiKey: (id, at) =>
      read((db) => db.updateTable("secrets_api_keys").set({ last_used_at: at }).where("id", "=", id).execute()).pipe(
        Effect.asVoid,
      ),

    listAudit: ({ projectId, limit, offset }) =>
      read((db) =>
        db
          .selectFrom("secrets_audit_log")
          .selectAll()
          .where("project_id", "=", projectId)
          .orderBy(orderExpression("created_at"), "desc")
          .orderBy(orderExpression("id"), "desc")
          .limit(limit)
          .offset(offset)
          .execute(),
      ).pipe(Effect.map((rows) => rows.map(toAudit))),

    listDataKeys: read((db) => db.selectFrom("secrets_projects").select(["id", "data_key"]).execute()).pipe(
      Effect.map((rows) => rows.map((row) => ({ projectId: row.id, dataKey: row.data_key }))),
    ),

    replaceDataKey: ({ projectId, expected, next }) =>
      read((db) =>
        db
          .updateTable("secrets_projects")
          .set({ data_key: next })
          .where("id", "=", projectId)
          .where("data_key", "=", expected)
          .executeTakeFirst(),
      ).pipe(Effect.map(changed)),
  }
  return SecretStore.SecretStore.of(store)
})

/** The store on the `SqlDatabase` in context (transactions opened by callers reach it; see there). */
export const layer: Layer.Layer<SecretStore.SecretStore, never, SqlDatabase> = Layer.effect(
  SecretStore.SecretStore,
  make,
)
