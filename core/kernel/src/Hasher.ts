/**
 * Hashing as a port: credentials are stored and looked up by SHA-256, and compared in constant time.
 * Adapters supply only `digest`; `make` builds the rest, `makeSync` the same from a synchronous digest (a runtime
 * with one, such as `node:crypto`, hashes a token on every request without a promise round trip).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { toHex, utf8 } from "./encoding.js"

export class Hasher extends Context.Service<
  Hasher,
  {
    /** SHA-256 of the bytes, or of the UTF-8 encoding of the text. */
    readonly sha256: (input: string | Uint8Array) => Effect.Effect<Uint8Array>
    /** SHA-256 as lowercase hex: the form in which credentials are stored and looked up. */
    readonly sha256Hex: (input: string | Uint8Array) => Effect.Effect<string>
    /** Constant-time equality: the time taken depends only on the lengths, never on where the inputs differ. */
    readonly equals: (a: string | Uint8Array, b: string | Uint8Array) => boolean
  }
>()("@coffer/kernel/Hasher") {}

const bytesOf = (input: string | Uint8Array) => (typeof input === "string" ? utf8.encode(input) : input)

/** Compares every byte even after a difference is found; a length mismatch is itself not secret. */
export const timingSafeEqual = (a: string | Uint8Array, b: string | Uint8Array): boolean => {
  const left = bytesOf(a)
  const right = bytesOf(b)
  let diff = left.length ^ right.length
  const length = Math.max(left.length, right.length)
  for (let i = 0; i < length; i++) diff |= (left[i % (left.length || 1)] ?? 0) ^ (right[i % (right.length || 1)] ?? 0)
  return diff === 0
}

export const make = (digest: (bytes: Uint8Array) => Effect.Effect<Uint8Array>): Hasher["Service"] => {
  const sha256 = (input: string | Uint8Array) => digest(bytesOf(input))
  return Hasher.of({
    sha256,
    sha256Hex: (input) => Effect.map(sha256(input), toHex),
    equals: timingSafeEqual,
  })
}

/**
 * The same from a synchronous digest: no promise and no hand-off per hash. A runtime that can also hash straight
 * to hex (`node:crypto`'s `digest("hex")`) passes `digestHex`, sparing the conversion of every token's hash.
 */
export const makeSync = (
  digest: (bytes: Uint8Array) => Uint8Array,
  digestHex?: (input: string | Uint8Array) => string,
): Hasher["Service"] => {
  const hasher = make((bytes) => Effect.sync(() => digest(bytes)))
  return digestHex === undefined
    ? hasher
    : Hasher.of({ ...hasher, sha256Hex: (input) => Effect.sync(() => digestHex(input)) })
}

/** Web Crypto's SHA-256, for runtimes without a synchronous one. */
export const layer: Layer.Layer<Hasher> = Layer.succeed(
  Hasher,
  make((bytes) =>
    Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)).pipe(
      Effect.map((buffer) => new Uint8Array(buffer)),
    ),
  ),
)
