/**
 * Statements that answer many calls at once (Postgres): what `SqlStore.batched` runs for the calls of one turn
 * (`./turnBatch.ts`). A call's params `P` become the statement's `Columns<P>`, each param an array with one element
 * per call; the statement reads them as rows with `callRows`, the `n`th row holding the `n`th call's values, and
 * tags every row it answers with that `n`. So one statement built once (`./prepared.ts`) serves a turn of any size.
 *
 * A call's part of the statement is usually an ordinary single-call builder given `fromRow` instead of `param`:
 * the same query, reading its values from the call's row (`r.<param>`) instead of from bound parameters.
 */
import { type AliasedRawBuilder, sql } from "kysely"
import type { Param } from "./prepared.js"

/** A batch's params: each of a call's params as an array, one element per call, in the calls' order. */
export type Columns<P> = { readonly [K in keyof P]: ReadonlyArray<P[K]> }

/** A batch statement's row: `n` is the place, from 1, of the call it answers (`bigint`, so text from `pg`). */
export interface Numbered {
  readonly n: string | number
}

/** The Postgres type of each param's values, for the array it travels in. */
export type ColumnTypes<P> = { readonly [K in keyof P & string]: "text" | "integer" }

/** The calls as rows named `r`: `r.<param>` for each param, and `r.n`, the call's place from 1. */
export const callRows = <P>(types: ColumnTypes<P>, param: Param<Columns<P>>): AliasedRawBuilder<P & Numbered, "r"> => {
  const names = Object.keys(types) as Array<keyof P & string>
  const arrays = names.map((name) => sql`${param(name)}::${sql.raw(types[name])}[]`)
  return sql<P & Numbered>`unnest(${sql.join(arrays)}) with ordinality`.as<"r">(
    sql`r(${sql.join(names.map((name) => sql.id(name)))}, n)`,
  )
}

/** A call's values as a single-call builder takes them (`param`), read from its row of `callRows`. */
export const fromRow =
  <P>(): Param<P> =>
  (name) =>
    sql.ref(`r.${name}`) as never

/** The params of `calls` as one batch's, each param's values in the calls' order (`null` for one left out). */
export const columnsOf = <P extends object>(calls: ReadonlyArray<P>): Columns<P> => {
  const columns: Record<string, Array<unknown>> = {}
  for (const name of Object.keys(calls[0]!)) columns[name] = calls.map((call) => call[name as keyof P] ?? null)
  return columns as Columns<P>
}

/** A batch's rows, by the call each answers. */
export const rowsByCall = <R extends Numbered>(rows: ReadonlyArray<R>, calls: number): Array<Array<R>> => {
  const answers = Array.from({ length: calls }, () => [] as R[])
  for (const row of rows) answers[Number(row.n) - 1]?.push(row)
  return answers
}
