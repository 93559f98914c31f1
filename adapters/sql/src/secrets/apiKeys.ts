/**
 * API keys on SQL: only their SHA-256 is stored, looked up by hash on every use. Which keys a person sees is the
 * use case's question (`seesApiKey`); the store lists every key of the projects it is given.
 */
import { toIso, toIsoOrNull } from "@coffer/kernel"
import type { SecretStore } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import { prepare } from "../prepared.js"
import * as SqlStore from "../SqlStore.js"
import type { Audited } from "./audit.js"
import { projectGone } from "./projects.js"
import { toApiKey, toUser } from "./rows.js"

type Store = SecretStore.SecretStore["Service"]

export type ApiKeysPart = Pick<
  Store,
  "createApiKey" | "findApiKeyByHash" | "findApiKey" | "listApiKeys" | "rotateApiKey" | "deleteApiKey" | "touchApiKey"
>

/**
 * Every request with an API key asks this (issue 10): built once, and the holder comes with the key (rule 11), one
 * round trip instead of two.
 */
const byHash = prepare<{ keyHash: string }>()((db, param) =>
  db
    .selectFrom("secrets_api_keys")
    .leftJoin("secrets_users", "secrets_users.id", "secrets_api_keys.user_id")
    .selectAll("secrets_api_keys")
    .select([
      "secrets_users.id as holder_id",
      "secrets_users.email as holder_email",
      "secrets_users.created_at as holder_created_at",
    ])
    .where("secrets_api_keys.key_hash", "=", param("keyHash")),
)

export const apiKeys = (store: SqlStore.SqlStore, { audited, auditedChange }: Audited): ApiKeysPart => {
  const { statement, query } = store
  return {
    createApiKey: ({ apiKey, audit }) =>
      audited(
        audit,
        statement((db) =>
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
              expires_at: toIsoOrNull(apiKey.expiresAt),
              last_used_at: toIsoOrNull(apiKey.lastUsedAt),
              created_at: toIso(apiKey.createdAt),
            })
            .execute(),
        ).pipe(SqlStore.failOn("ForeignKeyViolation", projectGone), Effect.asVoid),
      ),

    findApiKeyByHash: (keyHash) =>
      SqlStore.settle(store.first(byHash, { keyHash })).pipe(
        Effect.map((row) =>
          row === undefined
            ? undefined
            : {
                key: toApiKey(row),
                holder:
                  row.holder_id === null || row.holder_email === null || row.holder_created_at === null
                    ? undefined
                    : toUser({ id: row.holder_id, email: row.holder_email, created_at: row.holder_created_at }),
              },
        ),
      ),

    findApiKey: (id) =>
      query((db) => db.selectFrom("secrets_api_keys").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? undefined : toApiKey(row))),
      ),

    listApiKeys: (projectIds) =>
      projectIds.length === 0
        ? Effect.succeed([])
        : query((db) =>
            db
              .selectFrom("secrets_api_keys")
              .selectAll()
              .where("project_id", "in", [...projectIds])
              .execute(),
          ).pipe(Effect.map((rows) => rows.map(toApiKey))),

    rotateApiKey: ({ id, previousKeyHash, keyHash, keyPrefix, expiresAt, audit }) =>
      auditedChange(audit, (db) =>
        db
          .updateTable("secrets_api_keys")
          .set({ key_hash: keyHash, key_prefix: keyPrefix, expires_at: toIsoOrNull(expiresAt) })
          .where("id", "=", id)
          // Rotated since it was read, by a request that has already handed out its new value: not again.
          .where("key_hash", "=", previousKeyHash)
          .executeTakeFirst(),
      ),

    deleteApiKey: ({ id, audit }) =>
      auditedChange(audit, (db) => db.deleteFrom("secrets_api_keys").where("id", "=", id).executeTakeFirst()),

    touchApiKey: (id, at) =>
      query((db) =>
        db
          .updateTable("secrets_api_keys")
          .set({ last_used_at: toIso(at) })
          .where("id", "=", id)
          .execute(),
      ).pipe(Effect.asVoid),
  }
}
