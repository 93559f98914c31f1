/**
 * JSON answers kept as bytes, with an entity tag, for values that are read far more often than they change (a
 * schema polled by every CI job). The bytes and the tag are made once per value object and kept as long as the
 * object lives (a `WeakMap`): a use case that hands out the same object for the same state (the schema cache
 * does, per generation) is answered without serializing again, and a request whose `If-None-Match` names the tag
 * is answered 304 without a body at all. A changed value is a new object, so a stale tag can never match it.
 */
import { Hasher } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type { Context } from "hono"
import { presetResponse } from "./middleware/presetHeaders.js"
import { header } from "./request/header.js"

export interface Serialized {
  readonly body: Uint8Array
  /** A strong tag: the first 128 bits of the body's SHA-256, quoted. */
  readonly etag: string
}

const encoder = new TextEncoder()
const known = new WeakMap<object, Serialized>()

/** The value's JSON bytes and tag, made on first use and remembered for the object's lifetime. */
export const serializeJson = (value: object): Effect.Effect<Serialized, never, Hasher.Hasher> => {
  const found = known.get(value)
  if (found !== undefined) return Effect.succeed(found)
  const body = encoder.encode(JSON.stringify(value))
  return Hasher.Hasher.use((hasher) => hasher.sha256Hex(body)).pipe(
    Effect.map((hex) => {
      const serialized = { body, etag: `"${hex.slice(0, 32)}"` }
      known.set(value, serialized)
      return serialized
    }),
  )
}

/** Whether an `If-None-Match` header names `etag` (weak comparison, as RFC 9110 asks for this header), or is `*`. */
export const matches = (ifNoneMatch: string | undefined, etag: string): boolean => {
  if (ifNoneMatch === undefined) return false
  for (const candidate of ifNoneMatch.split(",")) {
    const tag = candidate.trim()
    if (tag === "*" || tag === etag || tag === `W/${etag}`) return true
  }
  return false
}

/**
 * 304 with the tag when the client holds these bytes already, else 200 with them; made with `presetResponse` when
 * the route is marked for it (`answersWithPresetHeaders`), else through the context.
 */
export const answerSerialized = (c: Context, serialized: Serialized): Response => {
  if (matches(header(c, "If-None-Match"), serialized.etag)) {
    const headers = { ETag: serialized.etag }
    return presetResponse(c, null, 304, headers) ?? c.body(null, 304, headers)
  }
  const headers = { "Content-Type": "application/json", ETag: serialized.etag }
  const body = serialized.body as Uint8Array<ArrayBuffer>
  return presetResponse(c, body, 200, headers) ?? c.body(body, 200, headers)
}
