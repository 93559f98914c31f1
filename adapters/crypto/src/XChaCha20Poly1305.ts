/**
 * The Cipher port on XChaCha20-Poly1305 from `@noble/ciphers` (DESIGN.md "Security decisions").
 *
 * This module supplies only the AEAD primitive; `Cipher.make` in the kernel builds the envelope (blob formats,
 * master-key ids, keyring, associated data) on top of it. XChaCha20's 24-byte nonce is large enough to draw at
 * random for every encryption without tracking counters, which is what lets many stateless instances share
 * one master key. `@noble/ciphers` is pure JavaScript, so the same code runs on Node and Bun; where `node:crypto`
 * gives the same bytes natively (Node), `make` uses that instead.
 */
import { Cipher, Encoding, Random } from "@coffer/kernel"
import { xchacha20poly1305 } from "@noble/ciphers/chacha.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Native from "./NodeXChaCha20Poly1305.js"

/** XChaCha20-Poly1305 with 24-byte nonces from the platform CSPRNG. */
export const primitives: Cipher.Primitives = {
  keyLength: Cipher.KEY_LENGTH,
  nonceLength: xchacha20poly1305.nonceLength,
  encrypt: (key, nonce, plaintext, aad) => xchacha20poly1305(key, nonce, aad).encrypt(plaintext),
  decrypt: (key, nonce, ciphertext, aad) => xchacha20poly1305(key, nonce, aad).decrypt(ciphertext),
  randomBytes: Random.randomBytes,
}

export interface Options {
  /** Wraps new data keys (`COFFER_MASTER_KEY`). */
  readonly masterKey: Redacted.Redacted<Uint8Array>
  /** Still unwrap data keys made before a rotation (`COFFER_MASTER_KEY_PREVIOUS`). */
  readonly previousKeys?: ReadonlyArray<Redacted.Redacted<Uint8Array>> | undefined
  /** The bounds of the unwrapped data keys kept in memory; `Cipher.DEFAULT_DATA_KEY_MEMORY` when unset. */
  readonly dataKeyMemory?: Cipher.DataKeyMemory | undefined
}

/**
 * The Cipher service; fails when a key is not 32 bytes. On Node the cipher runs natively (`NodeXChaCha20Poly1305`),
 * elsewhere in JavaScript; the blobs are the same.
 */
export const make = (options: Options): Effect.Effect<Cipher.Cipher["Service"], Cipher.CipherError> =>
  Cipher.make(
    Native.primitives ?? primitives,
    { current: options.masterKey, previous: options.previousKeys ?? [] },
    options.dataKeyMemory,
  )

export const layer = (options: Options): Layer.Layer<Cipher.Cipher, Cipher.CipherError> =>
  Layer.effect(Cipher.Cipher, make(options))

const HOW_TO_MAKE_ONE = "generate one with `openssl rand -base64 32`"

/**
 * Reads a master key as operators supply it: standard base64 of exactly 32 bytes. Surrounding whitespace (the
 * newline at the end of a key file) is ignored; anything else is refused. The error never repeats the input.
 */
export const parseMasterKey = (text: string): Effect.Effect<Redacted.Redacted<Uint8Array>, Cipher.CipherError> => {
  const bytes = Encoding.fromBase64(text.trim())
  if (bytes === undefined) {
    return Effect.fail(new Cipher.CipherError({ message: `the master key is not base64; ${HOW_TO_MAKE_ONE}` }))
  }
  if (bytes.length !== Cipher.KEY_LENGTH) {
    const message = `the master key must be base64 of exactly ${Cipher.KEY_LENGTH} bytes, not ${bytes.length}; ${HOW_TO_MAKE_ONE}`
    return Effect.fail(new Cipher.CipherError({ message }))
  }
  // An all-zero key is a placeholder left in a configuration file, never a key anyone generated.
  if (bytes.every((byte) => byte === 0)) {
    return Effect.fail(new Cipher.CipherError({ message: `the master key is all zero bytes; ${HOW_TO_MAKE_ONE}` }))
  }
  return Effect.succeed(Redacted.make(bytes, { label: "master key" }))
}

/**
 * Reads `COFFER_MASTER_KEY_PREVIOUS`: master keys separated by commas (spaces and line breaks around them are
 * ignored); empty text is an empty list. A bad entry is named by its position, never by its value.
 */
export const parseMasterKeys = (
  text: string,
): Effect.Effect<ReadonlyArray<Redacted.Redacted<Uint8Array>>, Cipher.CipherError> => {
  const entries = text.trim() === "" ? [] : text.split(",")
  return Effect.forEach(entries, (entry, index) =>
    parseMasterKey(entry).pipe(
      Effect.mapError(
        (error) => new Cipher.CipherError({ message: `master key #${index + 1} of the list: ${error.message}` }),
      ),
    ),
  )
}
