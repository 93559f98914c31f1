/**
 * Kysely's driver for better-sqlite3, with the file's connection also offered as a `SyncLane`
 * (`@coffer/adapter-sql`): used at once, synchronously, when nothing holds it or waits for it.
 *
 * better-sqlite3 runs every statement synchronously, in this thread. Kysely's own driver wraps each in promises
 * and queues callers for the connection with a mutex of promises; this one keeps that queue (a `Lock`) for callers
 * that come through Kysely, and lets the lane skip it only when it is empty, so the two never share the
 * connection and queued callers are not overtaken. Transactions begin `IMMEDIATE` either way (see `Sqlite.ts`).
 * The lane's transactions of one turn share a commit when a second connection serves the statements that only
 * read (`./groupCommit.ts`). */
import type { SyncLane, Tables } from "@coffer/adapter-sql"
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from "kysely"
import { groupCommit } from "./groupCommit.js"
import { Lock } from "./lock.js"

type BetterSqlite = import("better-sqlite3").Database
type Statement = ReturnType<BetterSqlite["prepare"]>

/**
 * The handle's statements, compiled once per SQL text and kept (at most `max`, the oldest dropped first):
 * compiling a statement each time cost a tenth of a write's CPU (issue 10).
 */
const statementsOf = (database: BetterSqlite, max: number) => {
  const statements = new Map<string, Statement>()
  return (sql: string): Statement => {
    const known = statements.get(sql)
    if (known !== undefined) return known
    const statement = database.prepare(sql)
    if (statements.size >= max) statements.delete(statements.keys().next().value as string)
    statements.set(sql, statement)
    return statement
  }
}

export interface InProcess {
  readonly dialect: Dialect
  readonly lane: SyncLane
  /** Called once the database's Kysely exists: the lane's connection needs its executor. */
  readonly bind: (db: Kysely<Tables>) => void
}

/** A statement's rows, or what it changed. */
const runStatement = <R>(statement: Statement, parameters: ReadonlyArray<unknown>): QueryResult<R> => {
  if (statement.reader) return { rows: statement.all(parameters) as Array<R> }
  const { changes, lastInsertRowid } = statement.run(parameters)
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] }
}

/**
 * The dialect and the lane over one better-sqlite3 handle that writes, and `reader`, a second handle on the same
 * file for statements that only read, when there is one: then the lane's transactions of one turn share a commit
 * (`./groupCommit.ts`). The handles are closed when Kysely is destroyed.
 */
export const inProcess = (
  database: BetterSqlite,
  statementCacheMax: number,
  reader?: BetterSqlite | undefined,
): InProcess => {
  const prepare = statementsOf(database, statementCacheMax)
  const prepareRead = reader === undefined ? undefined : statementsOf(reader, statementCacheMax)
  const lock = new Lock()

  const execute = <R>({ sql, parameters }: CompiledQuery<R>): QueryResult<R> => runStatement(prepare(sql), parameters)
  const raw = (sql: string) => {
    prepare(sql).run([])
  }

  const connection: DatabaseConnection & { db: Kysely<Tables> | undefined } = {
    executeQuery: <R>(query: CompiledQuery) => Promise.resolve(execute(query as CompiledQuery<R>)),
    streamQuery: async function* (query) {
      for (const row of prepare(query.sql).iterate(query.parameters)) yield { rows: [row as never] }
    },
    db: undefined,
  }

  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => {
      await lock.lock()
      return connection
    },
    beginTransaction: async () => raw("begin immediate"),
    commitTransaction: async () => raw("commit"),
    rollbackTransaction: async () => raw("rollback"),
    releaseConnection: async () => lock.unlock(),
    destroy: async () => {
      // The reader first, so that the writer, last out, folds the write-ahead log back into the file.
      reader?.close()
      database.close()
    },
  }

  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  }

  const groups = groupCommit(
    {
      raw,
      execute,
      inTransaction: () => database.inTransaction,
      db: () => connection.db!,
    },
    lock,
    reader !== undefined,
  )

  /** A statement outside transactions: a read on the reader when there is one, else on the writer when free. */
  const run = <R>(query: CompiledQuery<R>): QueryResult<R> | undefined => {
    if (connection.db === undefined) return undefined
    if (prepareRead !== undefined) {
      const statement = prepareRead(query.sql)
      if (statement.readonly) return runStatement(statement, query.parameters)
    }
    // Taken and handed back within this one synchronous step: nothing else can run in between.
    if (!lock.tryLock()) return undefined
    try {
      return execute(query)
    } finally {
      lock.unlock()
    }
  }

  return {
    dialect,
    bind: (db) => {
      // Kysely on the connection itself, without the lock: for the transactions on the lane.
      connection.db = new Kysely<Tables>({
        config: { dialect },
        dialect,
        driver,
        executor: db.getExecutor().withConnectionProvider({ provideConnection: (consume) => consume(connection) }),
      })
    },
    lane: { run, enter: () => (connection.db === undefined ? undefined : groups.enter()) },
  }
}
