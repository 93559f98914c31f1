/**
 * Projects and the people in them, on SQL: projects, memberships and invites (their data keys: `dataKeys.ts`).
 *
 * Invites (port rule 7): a conditional `update … where used_at is null` takes the invite; the membership insert
 * that follows fails on the primary key when the person is in already, and the rollback leaves the invite unused.
 * Whether an invite has expired is the use case's question, asked before.
 */
import { fromIso, toIso, toIsoOrNull } from "@coffer/kernel"
import { AlreadyMember, ProjectExists, ProjectGone, type Role, type SecretStore } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as SqlStore from "../SqlStore.js"
import type { Audited } from "./audit.js"
import {
  auditDraftRow,
  changed,
  type SealedColumns,
  sealedOf,
  toAccess,
  toApiKey,
  toEnvironment,
  toInvite,
  toProject,
  toSecret,
} from "./rows.js"
import { type ReadAtParams, reach, selectAccess } from "./statements.js"

/** The row of `projectEnvironment`: the project as the member sees it, and the environment's columns. */
type ProjectEnvironmentRow = Parameters<typeof toAccess>[0] & {
  readonly environment_id: string | null
  readonly environment_name: string | null
  readonly environment_created_at: string | null
}

/** What `findProjectEnvironment` answers for a row, with the secret's columns when the key was asked for. */
const found = (row: ProjectEnvironmentRow, secretColumns: SecretColumns | undefined) => {
  const access = toAccess(row)
  const { environment_id: id, environment_name: environmentName, environment_created_at: createdAt } = row
  const environment =
    id === null || environmentName === null || createdAt === null
      ? undefined
      : toEnvironment({ id, project_id: access.project.id, name: environmentName, created_at: createdAt })
  const secret =
    environment === undefined || secretColumns === undefined ? undefined : secretOf(secretColumns, environment.id)
  return { access, environment, secret }
}

/** The secret columns of `projectEnvironmentSecret`'s row, when it found one. */
interface SecretColumns {
  readonly secret_id: string | null
  readonly secret_key: string | null
  readonly secret_version: number | string | null
  readonly secret_empty: number | string | null
  readonly secret_created_at: string | null
  readonly secret_updated_at: string | null
}

const secretOf = (row: SecretColumns, environmentId: string): SecretStore.SecretRecord | undefined => {
  const { secret_id: id, secret_key: key, secret_version: version, secret_created_at, secret_updated_at } = row
  return id == null || key == null || version == null || secret_created_at == null || secret_updated_at == null
    ? undefined
    : toSecret({
        id,
        environment_id: environmentId,
        key,
        version: Number(version),
        empty: Number(row.secret_empty),
        created_at: secret_created_at,
        updated_at: secret_updated_at,
      })
}

type Store = SecretStore.SecretStore["Service"]

export const projectGone = () => new ProjectGone()

export type ProjectsPart = Pick<
  Store,
  | "createProject"
  | "findProject"
  | "findProjectEnvironment"
  | "readSecretAt"
  | "findProjectById"
  | "listProjects"
  | "deleteProject"
  | "listMembers"
  | "setMemberRole"
  | "removeMember"
  | "createInvite"
  | "listInvites"
  | "findInvite"
  | "deleteInvite"
  | "acceptInvite"
  | "removeSpentInvites"
>

export const projects = (store: SqlStore.SqlStore, { append, audited, auditedChange }: Audited): ProjectsPart => {
  const { statement, query } = store
  const { projectEnvironment, projectEnvironmentSecret, readAt } = reach
  // Postgres: the audited reads of one turn are one statement, one commit; the reaches of its writes one statement
  // (`SqlStore.batched`).
  const readAtAudited = store.batched(reach.readAtAuditedBatch, () => reach.readAtAudited)
  const projectEnvironmentSecrets = store.batched(
    reach.projectEnvironmentSecretBatch,
    () => reach.projectEnvironmentSecret,
  )

  const readAnswer = (row: (ProjectEnvironmentRow & SecretColumns & SealedColumns) | undefined) => {
    if (row === undefined) return undefined
    return { ...found(row, row), sealed: sealedOf(row) }
  }

  return {
    createProject: ({ project, environments, audit }) =>
      audited(
        audit,
        Effect.gen(function* () {
          yield* statement((db) =>
            db
              .insertInto("secrets_projects")
              .values({
                id: project.id,
                name: project.name,
                slug: project.slug,
                owner_id: project.ownerId,
                data_key: project.dataKey,
                data_key_version: project.dataKeyVersion,
                created_at: toIso(project.createdAt),
              })
              .execute(),
          ).pipe(
            SqlStore.failOn(
              "UniqueViolation",
              () =>
                new ProjectExists({ slug: project.slug, message: `A project with the slug "${project.slug}" exists` }),
            ),
          )
          yield* statement((db) =>
            db
              .insertInto("secrets_members")
              .values({
                project_id: project.id,
                user_id: project.ownerId,
                role: "owner",
                created_at: toIso(project.createdAt),
              })
              .execute(),
          )
          if (environments.length === 0) return
          yield* statement((db) =>
            db
              .insertInto("secrets_environments")
              .values(
                environments.map((environment) => ({
                  id: environment.id,
                  project_id: environment.projectId,
                  name: environment.name,
                  created_at: toIso(environment.createdAt),
                })),
              )
              .execute(),
          )
        }),
      ),

    findProject: (slug, userId) =>
      query((db) => selectAccess(db, userId).where("secrets_projects.slug", "=", slug).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? undefined : toAccess(row))),
      ),

    findProjectEnvironment: (slug, userId, name, key) =>
      key === undefined
        ? SqlStore.settle(store.first(projectEnvironment, { slug, userId, name })).pipe(
            Effect.map((row) => row && found(row, undefined)),
          )
        : SqlStore.settle(
            store.database.dialect === "postgres"
              ? Effect.map(projectEnvironmentSecrets({ slug, userId, name, key }), (rows) => rows[0])
              : store.first(projectEnvironmentSecret, { slug, userId, name, key }),
          ).pipe(Effect.map((row) => row && found(row, row))),

    readSecretAt: ({ slug, userId, projectId, environment: name, key, audit }) => {
      const params: ReadAtParams = { slug, userId, name, key, projectId: projectId ?? null }
      if (store.database.dialect === "postgres") {
        return SqlStore.settle(readAtAudited({ ...params, ...auditDraftRow(audit) })).pipe(
          Effect.map((rows) => readAnswer(rows[0])),
        )
      }
      // SQLite has no data-modifying CTE: the read and its record are one transaction of two statements.
      return store.transaction(
        Effect.gen(function* () {
          const answer = readAnswer(yield* store.first(readAt, params))
          if (answer?.sealed !== undefined && answer.environment !== undefined) {
            yield* append({ ...audit, projectId: answer.access.project.id, environmentId: answer.environment.id })
          }
          return answer
        }),
      )
    },

    findProjectById: (projectId, userId) =>
      query((db) => selectAccess(db, userId).where("secrets_projects.id", "=", projectId).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? undefined : toAccess(row))),
      ),

    listProjects: (userId) =>
      query((db) => selectAccess(db, userId).execute()).pipe(Effect.map((rows) => rows.map(toAccess))),

    deleteProject: ({ projectId, audit }) =>
      auditedChange(audit, (db) => db.deleteFrom("secrets_projects").where("id", "=", projectId).executeTakeFirst()),

    listMembers: (projectId) =>
      query((db) => db.selectFrom("secrets_members").selectAll().where("project_id", "=", projectId).execute()).pipe(
        Effect.map((rows) =>
          rows.map((row) => ({ userId: row.user_id, role: row.role as Role, createdAt: fromIso(row.created_at) })),
        ),
      ),

    setMemberRole: ({ projectId, userId, role, audit }) =>
      auditedChange(audit, (db) =>
        db
          .updateTable("secrets_members")
          .set({ role })
          .where("project_id", "=", projectId)
          .where("user_id", "=", userId)
          .executeTakeFirst(),
      ),

    removeMember: ({ projectId, userId, audit, keyAudit }) =>
      store.transaction(
        Effect.gen(function* () {
          const result = yield* statement((db) =>
            db
              .deleteFrom("secrets_members")
              .where("project_id", "=", projectId)
              .where("user_id", "=", userId)
              .executeTakeFirst(),
          )
          if (!changed(result)) return false
          // Port rule 4: a member's keys for the project go with them, each with its record (rule 1). The membership
          // row is gone (locked, on Postgres) before the keys are read, so a key created meanwhile is among them.
          const keys = yield* statement((db) =>
            db
              .deleteFrom("secrets_api_keys")
              .where("project_id", "=", projectId)
              .where("user_id", "=", userId)
              .returningAll()
              .execute(),
          )
          yield* append(audit)
          for (const key of keys) yield* append(yield* keyAudit(toApiKey(key)))
          return true
        }),
      ),

    createInvite: ({ invite, audit }) =>
      audited(
        audit,
        statement((db) =>
          db
            .insertInto("secrets_invites")
            .values({
              id: invite.id,
              project_id: invite.projectId,
              role: invite.role,
              token_hash: invite.tokenHash,
              created_by: invite.createdBy,
              created_at: toIso(invite.createdAt),
              expires_at: toIso(invite.expiresAt),
              used_at: toIsoOrNull(invite.usedAt),
              used_by: null,
            })
            .execute(),
        ).pipe(SqlStore.failOn("ForeignKeyViolation", projectGone), Effect.asVoid),
      ),

    listInvites: (projectId) =>
      query((db) => db.selectFrom("secrets_invites").selectAll().where("project_id", "=", projectId).execute()).pipe(
        Effect.map((rows) => rows.map(toInvite)),
      ),

    findInvite: (tokenHash) =>
      query((db) =>
        db.selectFrom("secrets_invites").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? undefined : toInvite(row)))),

    deleteInvite: ({ projectId, inviteId, audit }) =>
      auditedChange(audit, (db) =>
        db
          .deleteFrom("secrets_invites")
          .where("id", "=", inviteId)
          .where("project_id", "=", projectId)
          .where("used_at", "is", null)
          .executeTakeFirst(),
      ),

    // The complement of `isPending` (core/secrets domain/people.ts), as one statement.
    removeSpentInvites: (now) =>
      query((db) =>
        db
          .deleteFrom("secrets_invites")
          .where((row) => row.or([row("used_at", "is not", null), row("expires_at", "<=", toIso(now))]))
          .executeTakeFirst(),
      ).pipe(Effect.map((result) => Number(result.numDeletedRows))),

    acceptInvite: ({ inviteId, userId, at, audit }) =>
      store.transaction(
        Effect.gen(function* () {
          const invite = yield* statement((db) =>
            db
              .updateTable("secrets_invites")
              .set({ used_at: toIso(at), used_by: userId })
              .where("id", "=", inviteId)
              .where("used_at", "is", null)
              .returning(["project_id", "role"])
              .executeTakeFirst(),
          )
          if (invite === undefined) return undefined
          yield* statement((db) =>
            db
              .insertInto("secrets_members")
              .values({ project_id: invite.project_id, user_id: userId, role: invite.role, created_at: toIso(at) })
              .execute(),
          ).pipe(
            SqlStore.failOn("UniqueViolation", () => new AlreadyMember({ message: "You are already in this project" })),
          )
          const project = yield* statement((db) =>
            db.selectFrom("secrets_projects").selectAll().where("id", "=", invite.project_id).executeTakeFirstOrThrow(),
          )
          yield* append(audit)
          return toProject(project)
        }),
      ),
  }
}
