/**
 * Prepared statements on a real SQLite database: the same rows as the statement built afresh, each call with its
 * own values, inside a transaction as outside; and a statement whose placeholder would not be bound is refused
 * before anything runs, rather than sent with a wrong value.
 */
import { onFreshSqliteStore } from "@coffer/contract"
import * as Effect from "effect/Effect"
import { sql } from "kysely"
import { describe, expect, it } from "vitest"
import { prepare } from "./prepared.js"

const run = onFreshSqliteStore

const users = ["ada", "grace", "edsger"].map((name, i) => ({
  id: `u${i}`,
  email: `${name}@example.com`,
  email_key: `${name}@example.com`,
  created_at: `2026-01-0${i + 1}T00:00:00.000Z`,
}))

const byEmail = prepare<{ email: string; after: string }>()((db, param) =>
  db
    .selectFrom("secrets_users")
    .select(["id", "email"])
    .where("email_key", "=", param("email"))
    // A constant of the builder stays where it was among the placeholders.
    .where("id", "!=", "nobody")
    .where("created_at", ">", param("after")),
)

const insertUser = prepare<(typeof users)[number]>()((db, param) =>
  db.insertInto("secrets_users").values({
    id: param("id"),
    email: param("email"),
    email_key: param("email_key"),
    created_at: param("created_at"),
  }),
)

describe("prepare", () => {
  it("answers what the statement built afresh answers, for each call's own values, in and out of transactions", async () => {
    const answers = await run((store) =>
      Effect.gen(function* () {
        yield* store.transaction(
          Effect.forEach(users, (user) => store.query((db) => insertUser.run(db, user)), { discard: true }),
        )
        const prepared = yield* Effect.forEach(users, (user) =>
          store.query((db) => byEmail.first(db, { email: user.email_key, after: "2026-01-01T00:00:00.000Z" })),
        )
        const afresh = yield* Effect.forEach(users, (user) =>
          store.query((db) =>
            db
              .selectFrom("secrets_users")
              .select(["id", "email"])
              .where("email_key", "=", user.email_key)
              .where("id", "!=", "nobody")
              .where("created_at", ">", "2026-01-01T00:00:00.000Z")
              .executeTakeFirst(),
          ),
        )
        const inTransaction = yield* store.transaction(
          store.query((db) => byEmail.all(db, { email: "grace@example.com", after: "2000-01-01T00:00:00.000Z" })),
        )
        const inserted = yield* store.query((db) => db.selectFrom("secrets_users").select("id").execute())
        return { prepared, afresh, inTransaction, inserted: inserted.map((row) => row.id) }
      }),
    )
    expect(answers.prepared).toEqual(answers.afresh)
    expect(answers.prepared).toEqual([
      undefined,
      { id: "u1", email: "grace@example.com" },
      { id: "u2", email: "edsger@example.com" },
    ])
    expect(answers.inTransaction).toEqual([{ id: "u1", email: "grace@example.com" }])
    expect(answers.inserted.sort()).toEqual(["u0", "u1", "u2"])
  })

  it("refuses a statement whose placeholder Kysely would not bind, running nothing", async () => {
    const inlined = prepare<{ email: string }>()((db, param) =>
      db
        .selectFrom("secrets_users")
        .selectAll()
        // Text built into the SQL, not a value bound to it.
        .where("email_key", "=", sql.raw<string>(`'${param("email")}'`)),
    )
    const failure = await run((store) =>
      store.statement((db) => inlined.all(db, { email: "ada@example.com" })).pipe(Effect.flip),
    )
    expect(String(failure)).toMatch(/email did not become bound parameters/)
  })
})
