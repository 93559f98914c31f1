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

/** The columns of a key's row, in the order `createApiKey` selects them. */
const API_KEY_COLUMNS = [
  "id",
  "project_id",
  "user_id",
  "name",
  "key_prefix",
  "key_hash",
  "scope",
  "expires_at",
  "last_used_at",
  "created_at",
] as const

export const apiKeys = (store: SqlStore.SqlStore, { append, auditedChange }: Audited): ApiKeysPart => {
  const { statement, query } = store
  const postgres = store.database.dialect === "postgres"
  return {
    // Rule 8: the key is inserted from its holder's membership row, so one statement checks and writes. On Postgres
    // the row is locked against deletion (`for key share`) until the commit: a removal waits for this insert and
    // then deletes the new key with the others, or this insert waits for the removal and finds no row. SQLite runs
    // one writer at a time.
    createApiKey: ({ apiKey, audit }) =>
      store.transaction(
        Effect.gen(function* () {
          const inserted = yield* statement((db) => {
            const holder = db
              .selectFrom("secrets_members")
              .select((eb) => [
                eb.val(apiKey.id).as("id"),
                "project_id",
                "user_id",
                eb.val(apiKey.name).as("name"),
                eb.val(apiKey.keyPrefix).as("key_prefix"),
                eb.val(apiKey.keyHash).as("key_hash"),
                eb.val(apiKey.scope).as("scope"),
                eb.val(toIsoOrNull(apiKey.expiresAt)).as("expires_at"),
                eb.val(toIsoOrNull(apiKey.lastUsedAt)).as("last_used_at"),
                eb.val(toIso(apiKey.createdAt)).as("created_at"),
              ])
              .where("project_id", "=", apiKey.projectId)
              .where("user_id", "=", apiKey.userId)
            return db
              .insertInto("secrets_api_keys")
              .columns(API_KEY_COLUMNS)
              .expression(postgres ? holder.forKeyShare() : holder)
              .executeTakeFirst()
          })
          if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) return false
          yield* append(audit)
          return true
        }),
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
