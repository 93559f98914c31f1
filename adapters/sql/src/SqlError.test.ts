/**
 * The shared classifier on the error shapes each driver really raises (better-sqlite3 and bun:sqlite codes,
 * pg SQLSTATEs, Node socket errors, Kysely and pg messages). The dialect suites check a few of these against
 * live databases; the ones that need a crashing server or a lost network are checked here.
 */
import { StoreUnavailable } from "@coffer/kernel"
import { describe, expect, it } from "vitest"
import * as SqlError from "./SqlError.js"

const driverError = (props: Record<string, unknown>, message = "driver says no") =>
  Object.assign(new Error(message), props)

describe("SqlError.classify", () => {
  it.each([
    ["SQLite unique", driverError({ code: "SQLITE_CONSTRAINT_UNIQUE" }), "UniqueViolation", false],
    ["SQLite primary key", driverError({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" }), "UniqueViolation", false],
    ["SQLite foreign key", driverError({ code: "SQLITE_CONSTRAINT_FOREIGNKEY" }), "ForeignKeyViolation", false],
    ["SQLite busy", driverError({ code: "SQLITE_BUSY" }), "Timeout", true],
    ["SQLite busy snapshot", driverError({ code: "SQLITE_BUSY_SNAPSHOT" }), "Timeout", true],
    ["SQLite locked", driverError({ code: "SQLITE_LOCKED" }), "Timeout", true],
    ["SQLite not null", driverError({ code: "SQLITE_CONSTRAINT_NOTNULL" }), "Unknown", false],
    ["SQLite I/O", driverError({ code: "SQLITE_IOERR_WRITE" }), "ConnectionError", true],
    ["bun:sqlite unique by errno", driverError({ name: "SQLiteError", errno: 2067 }), "UniqueViolation", false],
    ["bun:sqlite busy by errno", driverError({ name: "SQLiteError", errno: 5 }), "Timeout", true],
    ["Postgres unique", driverError({ code: "23505" }), "UniqueViolation", false],
    ["Postgres foreign key", driverError({ code: "23503" }), "ForeignKeyViolation", false],
    ["Postgres deadlock", driverError({ code: "40P01" }), "TransactionConflict", true],
    ["Postgres serialization", driverError({ code: "40001" }), "TransactionConflict", true],
    ["Postgres statement timeout", driverError({ code: "57014" }), "Timeout", true],
    ["Postgres lock timeout", driverError({ code: "55P03" }), "Timeout", true],
    ["Postgres undefined table", driverError({ code: "42P01" }), "Unknown", false],
    ["not an error at all", "boom", "Unknown", false],
  ] as const)("%s → %s", (_, cause, reason, retryable) => {
    const classified = SqlError.classify(cause)
    expect(classified._tag).toBe(reason)
    expect(classified.retryable).toBe(retryable)
  })

  it("keeps the constraint that was violated", () => {
    const sqlite = SqlError.classify(
      driverError({ code: "SQLITE_CONSTRAINT_UNIQUE" }, "UNIQUE constraint failed: coffer_meta.key"),
    )
    const postgres = SqlError.classify(driverError({ code: "23505", constraint: "coffer_meta_pkey" }))
    expect(sqlite._tag === "UniqueViolation" && sqlite.constraint).toBe("coffer_meta.key")
    expect(postgres._tag === "UniqueViolation" && postgres.constraint).toBe("coffer_meta_pkey")
  })
})

describe("SqlError.fromCause", () => {
  it.each([
    ["Postgres shutting down", driverError({ code: "57P01" })],
    ["Postgres connection failure", driverError({ code: "08006" })],
    ["Postgres too many connections", driverError({ code: "53300" })],
    ["refused", driverError({ code: "ECONNREFUSED" })],
    ["timed out", driverError({ code: "ETIMEDOUT" })],
    ["refused on every address", new AggregateError([driverError({ code: "ECONNREFUSED" })], "connect failed")],
    ["pg lost the socket", new Error("Connection terminated unexpectedly")],
    ["pg pool timeout", new Error("timeout exceeded when trying to connect")],
    ["Kysely destroyed", new Error("driver has already been destroyed")],
    ["better-sqlite3 closed", new TypeError("The database connection is not open")],
    ["SQLite cannot open", driverError({ code: "SQLITE_CANTOPEN" })],
  ])("%s → StoreUnavailable", (_, cause) => {
    const error = SqlError.fromCause(cause)
    expect(error).toBeInstanceOf(StoreUnavailable)
    expect(error._tag === "StoreUnavailable" && error.store).toBe("database")
  })

  it("wraps every other failure in SqlError with its reason", () => {
    const error = SqlError.fromCause(driverError({ code: "23505" }))
    expect(error._tag).toBe("SqlError")
    expect(error._tag === "SqlError" && error.reason._tag).toBe("UniqueViolation")
  })

  it("passes errors that are already classified through unchanged", () => {
    const unavailable = new StoreUnavailable({ store: "database", message: "down" })
    const sqlError = new SqlError.SqlError({ reason: new SqlError.Timeout({ message: "slow" }) })
    expect(SqlError.fromCause(unavailable)).toBe(unavailable)
    expect(SqlError.fromCause(sqlError)).toBe(sqlError)
  })
})
