/**
 * API tokens of the schemas service, on SQL: found by hash only, the plaintext never stored (port rule 8).
 */

import { toIso } from "@coffer/kernel"
import type { SchemaStore, TokenRecord } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import type * as SqlStore from "../SqlStore.js"
import { byName, json, tokenOf } from "./rows.js"
import type { Writing } from "./writing.js"

export type TokensPart = Pick<
  SchemaStore["Service"],
  "insertToken" | "listTokens" | "findTokenByHash" | "removeToken" | "touchToken"
>

export const tokens = ({ query }: SqlStore.SqlStore, transaction: Writing): TokensPart => ({
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
          created_at: toIso(token.createdAt),
          created_by: token.createdBy,
          last_used_at: token.lastUsedAt === undefined ? null : toIso(token.lastUsedAt),
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
        .set({ last_used_at: toIso(at) })
        .where("id", "=", id)
        .execute(),
    ).pipe(Effect.asVoid),
})
