/**
 * The one error classifier for every SQL driver Coffer speaks to (better-sqlite3, bun:sqlite, pg) and Kysely
 * itself. A failed statement becomes a `SqlError` whose `reason` says what went wrong and whether trying again
 * can help; a failure that means "the database cannot be used right now" becomes the kernel's
 * `StoreUnavailable`, so that every port built on SQL fails closed with a 503 instead of a 500.
 *
 * Keeping both driver families in one place means the stores, written once against Kysely, can rely on
 * `UniqueViolation` meaning the same thing on SQLite and Postgres.
 */
import { StoreUnavailable } from "@coffer/kernel"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

const reasonFields = {
  /** The driver's own message: names tables, columns and constraints, never parameter values. */
  message: Schema.String,
  /** The driver's code (`SQLITE_BUSY`, SQLSTATE `23505`, `ECONNREFUSED`…), for operators. */
  code: Schema.optional(Schema.String),
  cause: Schema.optional(Schema.Defect()),
}

/** A row would duplicate a unique or primary key. Callers usually turn this into a domain "already exists". */
export class UniqueViolation extends Schema.TaggedError<UniqueViolation>()("UniqueViolation", {
  ...reasonFields,
  /** The constraint (Postgres) or `table.column` list (SQLite) that was violated, when the driver says. */
  constraint: Schema.optional(Schema.String),
}) {
  get retryable(): boolean {
    return false
  }
}

/** A row refers to a missing parent, or a parent still has children. */
export class ForeignKeyViolation extends Schema.TaggedError<ForeignKeyViolation>()("ForeignKeyViolation", {
  ...reasonFields,
  constraint: Schema.optional(Schema.String),
}) {
  get retryable(): boolean {
    return false
  }
}

/**
 * The database cannot be reached or cannot do I/O. `fromCause` never returns a `SqlError` with this reason (it
 * becomes `StoreUnavailable`); `classify` does, for code that wants the detail.
 */
export class ConnectionError extends Schema.TaggedError<ConnectionError>()("ConnectionError", reasonFields) {
  get retryable(): boolean {
    return true
  }
}

/** The database answered that it gave up: a lock stayed busy (`SQLITE_BUSY`) or a statement timed out. */
export class Timeout extends Schema.TaggedError<Timeout>()("Timeout", reasonFields) {
  get retryable(): boolean {
    return true
  }
}

/**
 * The transaction lost against a concurrent one (Postgres deadlock or serialization failure); running the
 * whole transaction again can succeed.
 */
export class TransactionConflict extends Schema.TaggedError<TransactionConflict>()(
  "TransactionConflict",
  reasonFields,
) {
  get retryable(): boolean {
    return true
  }
}

/** Anything else: a bug in a query, a schema mismatch, a corrupt file. Retrying will not help. */
export class Unknown extends Schema.TaggedError<Unknown>()("Unknown", reasonFields) {
  get retryable(): boolean {
    return false
  }
}

export type SqlErrorReason =
  | UniqueViolation
  | ForeignKeyViolation
  | ConnectionError
  | Timeout
  | TransactionConflict
  | Unknown

export const SqlErrorReason = Schema.Union([
  UniqueViolation,
  ForeignKeyViolation,
  ConnectionError,
  Timeout,
  TransactionConflict,
  Unknown,
])

/**
 * A statement failed; `reason` says why. Stores handle one reason with `SqlStore.catchReason("UniqueViolation", …)`
 * or `SqlStore.failOn`, and leave the rest to `SqlStore.settle`.
 */
export class SqlError extends Schema.TaggedError<SqlError>()("SqlError", { reason: SqlErrorReason }) {
  override get message(): string {
    return `${this.reason._tag}: ${this.reason.message}`
  }

  /** True when running the statement (or, inside a transaction, the whole transaction) again can succeed. */
  get retryable(): boolean {
    return this.reason.retryable
  }
}

// Node's socket errors: the server is not there, or went away.
const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
])

// Errors without a code that pg, Kysely, better-sqlite3 and bun:sqlite raise when the connection, pool or file
// handle is gone. Matching on messages is a last resort; every pattern here is a fixed string in a driver.
const unusableMessages = [
  /Connection terminated/i,
  // pg's client-side bound on a statement's answer (`query_timeout`): the link stalled, the connection is given up.
  /Query read timeout/i,
  /timeout exceeded when trying to connect/i,
  /Client has encountered a connection error/i,
  /Client was closed and is not queryable/i,
  /Cannot use a pool after calling end/i,
  /driver has already been destroyed/i,
  /database connection is not open/i,
  /closed database/i,
]

type ReasonProps = { readonly message: string; readonly code: string | undefined; readonly cause: unknown }

const stringProp = (value: unknown, key: string): string | undefined => {
  if (!Predicate.hasProperty(value, key)) return undefined
  const prop = value[key]
  return typeof prop === "string" ? prop : undefined
}

const messageOf = (cause: unknown): string =>
  stringProp(cause, "message") || (typeof cause === "string" ? cause : "unknown database error")

/** `table.column` from SQLite's "UNIQUE constraint failed: table.column" and the like. */
const sqliteConstraint = (message: string): string | undefined => {
  const match = /constraint failed: (.+)$/.exec(message)
  return match?.[1]?.trim() || undefined
}

const classifySqlite = (code: string, props: ReasonProps, message: string): SqlErrorReason => {
  if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    return new UniqueViolation({ ...props, constraint: sqliteConstraint(message) })
  }
  if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") return new ForeignKeyViolation(props)
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return new Timeout(props)
  if (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_IOERR") || code === "SQLITE_FULL") {
    return new ConnectionError(props)
  }
  return new Unknown(props)
}

// SQLite's extended result codes, for bun:sqlite versions that report only `errno`.
const sqliteCodeByErrno: Record<number, string> = {
  2067: "SQLITE_CONSTRAINT_UNIQUE",
  1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
  787: "SQLITE_CONSTRAINT_FOREIGNKEY",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  14: "SQLITE_CANTOPEN",
  10: "SQLITE_IOERR",
  13: "SQLITE_FULL",
}

const classifyPostgres = (code: string, cause: unknown, props: ReasonProps): SqlErrorReason => {
  const constraint = stringProp(cause, "constraint")
  if (code === "23505") return new UniqueViolation({ ...props, constraint })
  if (code === "23503") return new ForeignKeyViolation({ ...props, constraint })
  if (code === "40001" || code === "40P01") return new TransactionConflict(props)
  // 57014: statement_timeout (or a cancel); 55P03: lock_timeout.
  if (code === "57014" || code === "55P03") return new Timeout(props)
  // 08: connection exceptions; 57P01-03: the server is shutting down or starting; 53300: no free connection
  // slots; 28: authentication; 3D000: the database does not exist. None lets this process use the store.
  if (
    code.startsWith("08") ||
    code.startsWith("57P0") ||
    code === "53300" ||
    code.startsWith("28") ||
    code === "3D000"
  ) {
    return new ConnectionError(props)
  }
  return new Unknown(props)
}

/** Names what went wrong with a driver error, whichever driver raised it. Never throws. */
export const classify = (cause: unknown): SqlErrorReason => {
  if (cause instanceof SqlError) return cause.reason
  // Node reports a refused dual-stack connect as an AggregateError; its first error carries the code.
  if (cause instanceof AggregateError && stringProp(cause, "code") === undefined && cause.errors.length > 0) {
    return classify(cause.errors[0])
  }
  const message = messageOf(cause)
  let code = stringProp(cause, "code")
  const errno = Predicate.hasProperty(cause, "errno") ? cause.errno : undefined
  if (code === undefined && typeof errno === "number" && /sqlite/i.test(stringProp(cause, "name") ?? "")) {
    code = sqliteCodeByErrno[errno] ?? sqliteCodeByErrno[errno & 0xff]
  }
  const props = { message, code, cause }
  if (code !== undefined) {
    if (code.startsWith("SQLITE_")) return classifySqlite(code, props, message)
    if (networkCodes.has(code)) return new ConnectionError(props)
    if (/^[0-9A-Z]{5}$/.test(code)) return classifyPostgres(code, cause, props)
  }
  if (unusableMessages.some((pattern) => pattern.test(message))) return new ConnectionError(props)
  return new Unknown(props)
}

/**
 * The error a failed database call surfaces as: `StoreUnavailable` when the database cannot be used right now,
 * otherwise `SqlError`. Errors that are already one of the two pass through unchanged.
 */
export const fromCause = (cause: unknown): SqlError | StoreUnavailable => {
  if (cause instanceof StoreUnavailable) return cause
  if (cause instanceof SqlError && cause.reason._tag !== "ConnectionError") return cause
  const reason = classify(cause)
  if (reason._tag === "ConnectionError") {
    return new StoreUnavailable({ store: "database", message: `database unavailable: ${reason.message}`, cause })
  }
  return new SqlError({ reason })
}

/** Whether `error` is a `SqlError`: the one guard stores use, never a look at `_tag` by hand. */
export const isSqlError = (error: unknown): error is SqlError => error instanceof SqlError

export type ReasonTag = SqlErrorReason["_tag"]
export type ReasonOf<K extends ReasonTag> = Extract<SqlErrorReason, { readonly _tag: K }>

/** Whether `error` is a `SqlError` for one of `reasons`. */
export const hasReason =
  <K extends ReasonTag>(...reasons: ReadonlyArray<K>) =>
  (error: unknown): error is SqlError & { readonly reason: ReasonOf<K> } =>
    isSqlError(error) && (reasons as ReadonlyArray<string>).includes(error.reason._tag)
