/**
 * Kysely's driver for better-sqlite3, with the file's one connection also offered as a `SyncLane`
 * (`@coffer/adapter-sql`): taken at once, synchronously, when nothing holds it or waits for it.
 *
 * better-sqlite3 runs every statement synchronously, in this thread. Kysely's own driver wraps each in promises
 * and queues callers for the connection with a mutex of promises; this one keeps that queue (a `Lock`) for callers
 * that come through Kysely, and lets the lane skip it only when it is empty, so the two never share the
 * connection and queued callers are not overtaken. Transactions begin `IMMEDIATE` either way (see `Sqlite.ts`).
 */
import type { SyncConnection, SyncLane, Tables } from "@coffer/adapter-sql"
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

type BetterSqlite = import("better-sqlite3").Database
type Statement = ReturnType<BetterSqlite["prepare"]>

/**
 * One holder at a time, first come first served; `tryLock` succeeds only when nobody holds or waits, so a caller
 * that cannot wait never jumps the queue. `unlock` hands the lock straight to the next waiter.
 */
export class Lock {
  #held = false
  readonly #waiters: Array<() => void> = []

  tryLock(): boolean {
    if (this.#held || this.#waiters.length > 0) return false
    this.#held = true
    return true
  }

  lock(): Promise<void> {
    if (this.tryLock()) return Promise.resolve()
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  unlock(): void {
    const next = this.#waiters.shift()
    if (next === undefined) this.#held = false
    else next()
  }
}

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

/** The dialect and the lane over one better-sqlite3 handle; the handle is closed when Kysely is destroyed. */
export const inProcess = (database: BetterSqlite, statementCacheMax: number): InProcess => {
  const prepare = statementsOf(database, statementCacheMax)
  const lock = new Lock()

  const execute = <R>({ sql, parameters }: CompiledQuery<R>): QueryResult<R> => {
    const statement = prepare(sql)
    if (statement.reader) return { rows: statement.all(parameters) as Array<R> }
    const { changes, lastInsertRowid } = statement.run(parameters)
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] }
  }
  const raw = (sql: string) => () => {
    prepare(sql).run([])
  }

  const connection: DatabaseConnection & Omit<SyncConnection, "db"> & { db: Kysely<Tables> | undefined } = {
    executeQuery: <R>(query: CompiledQuery) => Promise.resolve(execute(query as CompiledQuery<R>)),
    streamQuery: async function* (query) {
      for (const row of prepare(query.sql).iterate(query.parameters)) yield { rows: [row as never] }
    },
    execute,
    db: undefined,
    begin: raw("begin immediate"),
    commit: raw("commit"),
    rollback: raw("rollback"),
  }

  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => {
      await lock.lock()
      return connection
    },
    beginTransaction: async () => connection.begin(),
    commitTransaction: async () => connection.commit(),
    rollbackTransaction: async () => connection.rollback(),
    releaseConnection: async () => lock.unlock(),
    destroy: async () => {
      database.close()
    },
  }

  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  }

  return {
    dialect,
    bind: (db) => {
      // Kysely on the connection itself, without the lock: for the holder of the lane's transaction.
      connection.db = new Kysely<Tables>({
        config: { dialect },
        dialect,
        driver,
        executor: db.getExecutor().withConnectionProvider({ provideConnection: (consume) => consume(connection) }),
      })
    },
    lane: {
      take: () => (connection.db !== undefined && lock.tryLock() ? (connection as SyncConnection) : undefined),
      release: () => lock.unlock(),
    },
  }
}
