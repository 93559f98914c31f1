/**
 * What the SQL stores count, through Effect's `Metric`: failed statements by `SqlError` reason (an outage counts
 * as `ConnectionError`, the reason `fromCause` turns into `StoreUnavailable`), and transactions that lost a
 * conflict and were run again (`SqlStore.transaction`). Counted in the registry of the runtime that runs the
 * store call, so each service's `/metrics` shows its own.
 */
import { Metrics, StoreUnavailable } from "@coffer/kernel"
import type * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type { ReasonTag, SqlError } from "./SqlError.js"

const REASONS: ReadonlyArray<ReasonTag> = [
  "UniqueViolation",
  "ForeignKeyViolation",
  "ConnectionError",
  "Timeout",
  "TransactionConflict",
  "Unknown",
]

const storeErrors = Metrics.labelled(
  Metric.counter("coffer_store_errors_total", {
    description: "Failed database statements by reason (ConnectionError: the database could not be reached)",
    incremental: true,
  }),
  "reason",
  REASONS,
)

const transactionsRetried = Metric.counter("coffer_store_transactions_retried_total", {
  description: "Transactions run again after losing a serialization conflict or a deadlock",
  incremental: true,
})

/** Counts a failed statement under its reason. */
export const countError = (error: SqlError | StoreUnavailable): Effect.Effect<void> =>
  Metric.update(storeErrors[error instanceof StoreUnavailable ? "ConnectionError" : error.reason._tag], 1)

/** Counts a transaction about to be run again. */
export const countRetry: Effect.Effect<void> = Metric.update(transactionsRetried, 1)
