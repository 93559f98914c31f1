/**
 * The Hasher port on `node:crypto` (Node, and Bun, which implements it): SHA-256 computed synchronously. Checking
 * an API token hashes it on every request; Web Crypto's `subtle.digest` would cost a promise and a hand-off to
 * the thread pool each time, for 32 bytes of input.
 */
import * as crypto from "node:crypto"
import { Hasher } from "@coffer/kernel"
import * as Layer from "effect/Layer"

/** A plain `Uint8Array` view of the digest, as Web Crypto's hasher returns (a `Buffer` is a subclass). */
export const digest = (bytes: Uint8Array): Uint8Array => {
  const hash = crypto.createHash("sha256").update(bytes).digest()
  return new Uint8Array(hash.buffer, hash.byteOffset, hash.byteLength)
}

/** `crypto.hash` (Node 20.12+, Bun): one call with no `Hash` object, about twice as fast for a token's few bytes. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "hex") => string }).hash

/** Lowercase hex of the SHA-256 of the bytes, or of the UTF-8 encoding of the text. */
export const digestHex = (input: string | Uint8Array): string =>
  oneShot === undefined ? crypto.createHash("sha256").update(input).digest("hex") : oneShot("sha256", input, "hex")

export const layer: Layer.Layer<Hasher.Hasher> = Layer.succeed(Hasher.Hasher, Hasher.makeSync(digest, digestHex))
