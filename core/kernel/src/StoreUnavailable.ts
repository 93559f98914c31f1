/**
 * The failure every storage-backed port shares: the backing store (database, Redis) could not be reached
 * or did not answer in time. It maps to 503 at the HTTP edge, so that a check that cannot be made fails
 * closed instead of being read as "allowed" or "not found".
 */
import * as Schema from "effect/Schema"

export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  /** Which backing store failed, for operators; never user data. */
  store: Schema.Literals(["database", "cache"]),
  message: Schema.String,
  cause: Schema.optional(Schema.Defect()),
}) {}
