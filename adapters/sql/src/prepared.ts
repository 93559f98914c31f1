/**
 * Statements built once. Kysely builds a query's operation tree and compiles it to SQL on every call; for the
 * statements on the hot paths (an audited read, a write, a credential check) that cost more than running them on
 * SQLite (issue 10: about a third of an audited read's CPU). A prepared statement is built and compiled once per
 * database with named placeholders where its values go, and each call only puts its values in their places: the
 * same SQL text every time, so the driver's own statement cache (better-sqlite3, see the SQLite adapter) hits too.
 *
 * The builder is the ordinary typed Kysely builder, so the statement is checked against `Tables` like any other;
 * `param(name)` stands for a value. A placeholder must reach the compiled query as one bound parameter: compiling
 * refuses a statement where one does not (a list spread over an `in`, a value Kysely inlined), so a statement that
 * cannot be prepared fails the first time it runs, in the tests, and never binds a wrong value.
 */
import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from "kysely"
import type { Tables } from "./Tables.js"

/** Where a value goes; never sent to the database. */
class Placeholder {
  constructor(readonly name: string) {}
}

/** One compiled statement: its SQL, and for each bound parameter either a placeholder or a constant of the builder. */
interface Compiled {
  readonly sql: string
  readonly slots: ReadonlyArray<unknown>
}

export interface Prepared<P, R> {
  /** Its name among the process's prepared statements: what a server that keeps statements prepared knows it by. */
  readonly name: string
  /** The statement for `db` with `params` in their places, for a caller that runs it itself (`SqlDatabase.execute`). */
  readonly compile: (db: Kysely<Tables>, params: P) => CompiledQuery<R>
  /** Every row. */
  readonly all: (db: Kysely<Tables>, params: P) => Promise<Array<R>>
  /** The first row, if any. */
  readonly first: (db: Kysely<Tables>, params: P) => Promise<R | undefined>
  /** The driver's whole result: rows, and the number of rows an insert, update or delete touched. */
  readonly run: (db: Kysely<Tables>, params: P) => Promise<QueryResult<R>>
}

/** What a builder calls where a value goes. */
export type Param<P> = <K extends keyof P & string>(name: K) => P[K]

const compileOnce = (query: Compilable<unknown>, names: ReadonlySet<string>): Compiled => {
  const { sql, parameters } = query.compile()
  const bound = new Set(parameters.flatMap((value) => (value instanceof Placeholder ? [value.name] : [])))
  const missing = [...names].filter((name) => !bound.has(name))
  if (missing.length > 0) {
    throw new Error(`prepared statement: ${missing.join(", ")} did not become bound parameters in: ${sql}`)
  }
  return { sql, slots: parameters }
}

/** Statements prepared so far, for their names. */
let preparedCount = 0

/**
 * A statement over parameters `P`, built by `build` on first use on each database (a transaction shares its
 * database's): `prepare<{ id: string }>()((db, param) => db.selectFrom("t").selectAll().where("id", "=", param("id")))`.
 */
export const prepare =
  <P extends object>() =>
  <R>(build: (db: Kysely<Tables>, param: Param<P>) => Compilable<R>): Prepared<P, R> => {
    const name = `coffer_prepared_${++preparedCount}`
    // Keyed by the dialect adapter: one per Kysely instance, shared by its transactions, gone with the instance.
    const compiled = new WeakMap<object, Compiled>()
    const compiledFor = (db: Kysely<Tables>): Compiled => {
      const key = db.getExecutor().adapter
      const known = compiled.get(key)
      if (known !== undefined) return known
      const names = new Set<string>()
      const made = compileOnce(
        build(db, (name) => {
          names.add(name)
          return new Placeholder(name) as never
        }),
        names,
      )
      compiled.set(key, made)
      return made
    }
    const compile = (db: Kysely<Tables>, params: P): CompiledQuery<R> => {
      const { sql, slots } = compiledFor(db)
      const values = slots.map((slot) =>
        slot instanceof Placeholder ? (params as Record<string, unknown>)[slot.name] : slot,
      )
      return CompiledQuery.raw(sql, values) as CompiledQuery<R>
    }
    const run = (db: Kysely<Tables>, params: P): Promise<QueryResult<R>> => db.executeQuery<R>(compile(db, params))
    return {
      name,
      compile,
      run,
      all: (db, params) => run(db, params).then((result) => result.rows),
      first: (db, params) => run(db, params).then((result) => result.rows[0]),
    }
  }
