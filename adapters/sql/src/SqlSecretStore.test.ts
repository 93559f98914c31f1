/**
 * The SQL SecretStore against the SecretStore contract, on SQLite in memory and in a file, and on Postgres (a database of its own
 * per test). The audit log is made to refuse writes with a trigger, so that the atomicity rules are checked
 * against a real failure inside the transaction.
 */
import { freshPostgres, freshSqlite, freshSqliteFile, hasPostgres, secretStoreSuite } from "@coffer/contract"
import { Clock, Random } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { sql } from "kysely"
import { describe } from "vitest"
import { SqlAccounts, SqlDatabase, SqlSecretStore } from "./index.js"

const storeOn = (database: Layer.Layer<SqlDatabase.SqlDatabase, unknown>) =>
  Layer.mergeAll(SqlSecretStore.layer, SqlAccounts.layer, database).pipe(
    Layer.provide([Random.layer, Clock.layer]),
    Layer.provideMerge(database),
  )

/** Every later insert into the audit log fails, as a full disk or a revoked grant would make it. */
const breakAuditLog = Effect.flatMap(SqlDatabase.SqlDatabase, (database) =>
  database.query(async (db) => {
    if (database.dialect === "sqlite") {
      await sql`create trigger refuse_audit before insert on secrets_audit_log begin select raise(abort, 'audit log refused'); end`.execute(
        db,
      )
      return
    }
    await sql`create function refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit log refused'; end $$`.execute(
      db,
    )
    await sql`create trigger refuse_audit before insert on secrets_audit_log for each row execute function refuse_audit()`.execute(
      db,
    )
  }),
)

secretStoreSuite("sqlite", () => storeOn(freshSqlite()), { breakAuditLog })
// A file: reads on their own connection, and the transactions of one turn sharing a commit.
secretStoreSuite("sqlite file", () => storeOn(freshSqliteFile()), { breakAuditLog })
describe.runIf(await hasPostgres())("postgres", () => {
  secretStoreSuite("postgres", () => storeOn(freshPostgres()), { breakAuditLog })
})
