/** Answers and credentials many endpoints share. */
import * as Schema from "effect/Schema"
import type { Credential } from "./endpoint.js"

/** `{ ok: true }`: the change is made. */
export const Ok = Schema.Struct({ ok: Schema.Literal(true) }).annotate({ identifier: "Ok" })

/** A session or a bearer credential (an API token, an API key). */
export const SESSION_OR_BEARER: ReadonlyArray<Credential> = ["session", "bearer"]
/** A session only. */
export const SESSION: ReadonlyArray<Credential> = ["session"]
/** No credential. */
export const PUBLIC: ReadonlyArray<Credential> = []

/**
 * How a number in a query string is written, for the parameter's description: what `parseWholeNumber`
 * (`@coffer/kernel`) reads in both services. A JSON Schema `integer` alone would allow `010` or `1e2`.
 */
export const PLAIN_NUMBER = "decimal digits without a sign or leading zeros"
