/**
 * Randomness as a port. Adapters supply only `bytes`; `make` builds credentials on top, so every credential
 * in Coffer has the same shape: a fixed prefix naming its kind, then 32 random bytes in base64url.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { toBase64Url } from "./encoding.js"
import { randomBytes } from "./randomPool.js"

export { randomBytes }

export class Random extends Context.Service<
  Random,
  {
    /** `length` cryptographically secure random bytes. */
    readonly bytes: (length: number) => Effect.Effect<Uint8Array>
    /** A 256-bit credential: `prefix` followed by 43 base64url characters. */
    readonly token: (prefix: string) => Effect.Effect<string>
    /** A random identifier for rows (128 bits, base64url): not guessable, not sortable. */
    readonly id: Effect.Effect<string>
  }
>()("@coffer/kernel/Random") {}

/** Credentials are 32 random bytes (DESIGN.md "Security decisions"). */
export const TOKEN_BYTES = 32

export const make = (bytes: (length: number) => Effect.Effect<Uint8Array>): Random["Service"] =>
  Random.of({
    bytes,
    token: (prefix) => Effect.map(bytes(TOKEN_BYTES), (raw) => prefix + toBase64Url(raw)),
    id: Effect.map(bytes(16), toBase64Url),
  })

/** Web Crypto's CSPRNG (present on Node 20+, Bun and every browser-like runtime), a page at a time (`randomPool.ts`). */
export const layer: Layer.Layer<Random> = Layer.succeed(
  Random,
  make((length) => Effect.sync(() => randomBytes(length))),
)
