/**
 * The SQLite dialect of the SQL store: a scoped `SqlDatabase` on one SQLite file (or `:memory:`), through
 * better-sqlite3 on Node and bun:sqlite (with kysely-bun-sqlite) on Bun. Both drivers are optional peer
 * dependencies and are loaded with dynamic imports, so Node never loads `bun:sqlite` and Bun never loads the
 * native better-sqlite3 addon.
 *
 * SQLite serves one process: every write goes through the file's one writing connection, one at a time, and a
 * transaction holds that connection until it ends (on Node, reads outside transactions have a connection of their
 * own: see `./driver.ts`). Several instances need the Postgres dialect. An operator's
 * command (`coffer keys rotate`) may still write beside the running service: transactions begin IMMEDIATE, so each
 * takes the write lock at its start, waiting up to the busy timeout, instead of failing at once with SQLITE_BUSY
 * when a transaction that began by reading wants to write after the other process wrote.
 */
import { mkdir, open as openFile } from "node:fs/promises"
import { dirname, resolve } from "node:path"
import { SqlDatabase, type SyncLane, type Tables } from "@coffer/adapter-sql"
import { StoreUnavailable } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { CompiledQuery, type Dialect, type Driver, Kysely } from "kysely"
import { type InProcess, inProcess } from "./driver.js"

export interface Options {
  /** A file path (its parent directory is created) or `:memory:` for a private in-memory database. */
  readonly filename: string
  /** How long a statement waits for a lock held by another connection before failing with `Timeout`. */
  readonly busyTimeoutMs?: number | undefined
  /** Compiled statements kept for reuse (better-sqlite3; bun:sqlite keeps its own); `STATEMENT_CACHE_MAX` unset. */
  readonly statementCacheMax?: number | undefined
  /** Pages the write-ahead log grows to before a commit copies them into the file; `WAL_AUTOCHECKPOINT_PAGES` unset. */
  readonly walAutocheckpointPages?: number | undefined
  /**
   * When a commit waits for the disk: `normal` (the default) at each checkpoint, so the last commits before a power
   * loss may be lost but the file is never corrupt; `full` at every commit, which costs each write an fsync.
   */
  readonly synchronous?: Synchronous | undefined
}

/** SQLite's `synchronous` levels that make sense with WAL. */
export type Synchronous = "normal" | "full"

/** The part of both drivers' database handles this module uses: enough to set pragmas and to close. */
interface SqliteHandle {
  exec(sql: string): unknown
  close(): unknown
}

const memory = ":memory:"

// A variable specifier: type checkers and bundlers leave it alone, and only Bun can resolve it.
const bunSqliteModule = "bun:sqlite"

/**
 * The dialect with transactions begun by `begin immediate` (see the module doc). SQLite upgrades a deferred
 * transaction from reading to writing without calling the busy handler, to avoid deadlocks, so a read-then-write
 * transaction would fail whenever another process had written meanwhile; an immediate one waits its turn.
 */
const immediateTransactions = (dialect: Dialect): Dialect => ({
  createAdapter: () => dialect.createAdapter(),
  createIntrospector: (db) => dialect.createIntrospector(db),
  createQueryCompiler: () => dialect.createQueryCompiler(),
  createDriver: (): Driver => {
    const driver = dialect.createDriver()
    return {
      init: () => driver.init(),
      acquireConnection: () => driver.acquireConnection(),
      beginTransaction: async (connection) => {
        await connection.executeQuery(CompiledQuery.raw("begin immediate"))
      },
      commitTransaction: (connection) => driver.commitTransaction(connection),
      rollbackTransaction: (connection) => driver.rollbackTransaction(connection),
      releaseConnection: (connection) => driver.releaseConnection(connection),
      destroy: () => driver.destroy(),
      ...(driver.savepoint && { savepoint: driver.savepoint.bind(driver) }),
      ...(driver.rollbackToSavepoint && { rollbackToSavepoint: driver.rollbackToSavepoint.bind(driver) }),
      ...(driver.releaseSavepoint && { releaseSavepoint: driver.releaseSavepoint.bind(driver) }),
    }
  },
})

/**
 * The handles on `filename`, the one that writes first, each with `pragmas` set. On Node, a file also gets a second
 * handle for statements that only read (`query_only`), which sees committed data only while the lane's transactions
 * of one turn wait for their shared commit (`./groupCommit.ts`); an in-memory database cannot have one (a second
 * connection to `:memory:` opens another database).
 */
const openHandles = async (
  filename: string,
  statementCacheMax: number,
  pragmas: ReadonlyArray<string>,
): Promise<{ handles: ReadonlyArray<SqliteHandle>; dialect: Dialect; inProcess?: InProcess }> => {
  const opened: Array<SqliteHandle> = []
  const configured = <H extends SqliteHandle>(handle: H, extra: ReadonlyArray<string> = []): H => {
    opened.push(handle)
    for (const pragma of [...pragmas, ...extra]) handle.exec(pragma)
    return handle
  }
  try {
    if ("Bun" in globalThis) {
      const { Database } = await import(/* @vite-ignore */ bunSqliteModule)
      const { BunSqliteDialect } = await import("kysely-bun-sqlite")
      const database = configured(new Database(filename, { create: true }))
      return { handles: opened, dialect: immediateTransactions(new BunSqliteDialect({ database })) }
    }
    const { default: Database } = await import("better-sqlite3")
    const database = configured(new Database(filename))
    const reader = filename === memory ? undefined : configured(new Database(filename), ["pragma query_only = ON"])
    const made = inProcess(database, statementCacheMax, reader)
    return { handles: opened, dialect: made.dialect, inProcess: made }
  } catch (error) {
    for (const handle of opened.reverse()) handle.close()
    throw error
  }
}

/** How many compiled statements the better-sqlite3 connection keeps by default; the store issues a few dozen shapes. */
export const STATEMENT_CACHE_MAX = 256

/**
 * How far the write-ahead log grows (in pages of 4 KiB) before the commit that passes it copies the log into the
 * database file, by default: SQLite's own 1,000 suits a small embedded file, but every audited read commits a few
 * pages that later ones rewrite (the audit log's newest leaf and index pages), and a checkpoint writes each page it
 * finds once, however often it was rewritten. Ten times as many pages between checkpoints cut an audited read's CPU
 * by about a tenth (issue 10), for a log file of up to ~40 MB.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000

/** How long a statement waits for another process's lock by default (an operator's command writing beside the service). */
export const BUSY_TIMEOUT_MS = 5_000

const pragmas = (
  filename: string,
  busyTimeoutMs: number,
  walPages: number,
  synchronous: Synchronous,
): ReadonlyArray<string> => [
  // WAL lets readers proceed while a write commits; it needs a real file (in-memory databases ignore it).
  ...(filename === memory ? [] : ["pragma journal_mode = WAL", `pragma wal_autocheckpoint = ${walPages}`]),
  `pragma busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`,
  // Off by default in SQLite; the schema's foreign keys are rules, not comments.
  "pragma foreign_keys = ON",
  // NORMAL: durable at every checkpoint; with WAL the usual choice, far fewer fsyncs than FULL.
  `pragma synchronous = ${synchronous === "full" ? "FULL" : "NORMAL"}`,
]

/**
 * The file, when it is new, made readable by its owner alone (0600), and any directory made for it 0700, as the
 * master key's file is: it holds the sealed secrets, the hashes of keys, tokens and sessions, and the audit log's
 * people and addresses. SQLite gives its `-wal` and `-shm` files the database file's permissions, so they follow; a
 * zero-length file is an empty database to SQLite. A file that exists keeps the permissions its operator gave it.
 */
const createPrivately = async (filename: string): Promise<void> => {
  await mkdir(dirname(resolve(filename)), { recursive: true, mode: 0o700 })
  try {
    await (await openFile(filename, "wx", 0o600)).close()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  }
}

const open = async (
  options: Options,
): Promise<{ handles: ReadonlyArray<SqliteHandle>; db: Kysely<Tables>; lane: SyncLane | undefined }> => {
  if (options.filename !== memory) await createPrivately(options.filename)
  const walPages = Math.max(1, Math.trunc(options.walAutocheckpointPages ?? WAL_AUTOCHECKPOINT_PAGES))
  const busyTimeoutMs = options.busyTimeoutMs ?? BUSY_TIMEOUT_MS
  const { handles, dialect, inProcess } = await openHandles(
    options.filename,
    Math.max(1, Math.trunc(options.statementCacheMax ?? STATEMENT_CACHE_MAX)),
    pragmas(options.filename, busyTimeoutMs, walPages, options.synchronous ?? "normal"),
  )
  const db = new Kysely<Tables>({ dialect })
  inProcess?.bind(db)
  return { handles, db, lane: inProcess?.lane }
}

const close = async ({
  handles,
  db,
}: {
  readonly handles: ReadonlyArray<SqliteHandle>
  readonly db: Kysely<Tables>
}): Promise<void> => {
  await db.destroy()
  // Kysely closes the handles only if a query ever ran; closing an already closed handle does nothing. The reader
  // goes first, so that the writer, last out, folds the write-ahead log back into the file.
  for (const handle of [...handles].reverse()) handle.close()
}

/** The service on a freshly opened database, closed when the scope closes. */
export const make = (options: Options): Effect.Effect<SqlDatabase.Service, StoreUnavailable, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: () => open(options),
        // A SQLite file that cannot be opened will not heal by itself: fail the start with the reason.
        catch: (cause) =>
          new StoreUnavailable({
            store: "database",
            message: `cannot open the SQLite database ${options.filename}: ${cause instanceof Error ? cause.message : String(cause)}`,
            cause,
          }),
      }),
      (opened) => Effect.promise(() => close(opened).catch(() => undefined)),
    ),
    ({ db, lane }) => SqlDatabase.make({ db, dialect: "sqlite", lane }),
  )

/** `SqlDatabase` on SQLite; the database is closed when the layer is released. */
export const layer = (options: Options): Layer.Layer<SqlDatabase.SqlDatabase, StoreUnavailable> =>
  Layer.effect(SqlDatabase.SqlDatabase, make(options))
