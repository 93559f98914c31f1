/**
 * Lookups and writes by many names, chunked: a batch stays well inside every driver's limit on bound parameters
 * and is a fixed few statements for the sizes a cascade meets, never one per name.
 */
import * as Effect from "effect/Effect"

/** Bound parameters per `in (…)` list: far below SQLite's 32766 and Postgres' 65535. */
export const CHUNK = 500

/** Rows per batched output update (four parameters each). */
export const OUTPUT_CHUNK = 250

export const chunks = <A>(items: ReadonlyArray<A>, size = CHUNK): ReadonlyArray<ReadonlyArray<A>> => {
  const result: Array<ReadonlyArray<A>> = []
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size))
  return result
}

/**
 * `run` over each chunk, yielding to the event loop after each: a cascade's batch lookups span many chunks, and
 * SQLite's driver answers synchronously, so without the yields they would hold the process for their whole length.
 */
export const eachChunk = <A, B, E>(items: ReadonlyArray<A>, run: (chunk: ReadonlyArray<A>) => Effect.Effect<B, E>) =>
  Effect.forEach(chunks(items), (chunk) => Effect.tap(run(chunk), () => Effect.yieldNow))
