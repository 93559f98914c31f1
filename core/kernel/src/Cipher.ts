/**
 * The Cipher port: envelope encryption for secret values (DESIGN.md "Security decisions").
 *
 * A master key (held by the operator, never stored) wraps one random data key per project; the wrapped data
 * key is stored beside the project. Each value is sealed with an AEAD under the project's data key, with
 * associated data that binds the ciphertext to its row, so a ciphertext moved to another row fails to open.
 *
 * Every stored blob names its format and the key that made it, so that after a master-key rotation
 * (`rewrap`) data keys wrapped under a previous master key still open while it is in the keyring.
 *
 * Rules every adapter MUST keep (checked by the contract suite): open(seal(x)) = x; sealing the same
 * plaintext twice gives different blobs; a changed byte, other associated data, or another data key fails
 * with `CipherError`; blobs made under a previous master key open after rotation.
 */
import { Context, type Effect, Schema } from "effect"

export class CipherError extends Schema.TaggedError<CipherError>()("CipherError", {
  /** Never contains key material or plaintext. */
  message: Schema.String,
}) {}

export class Cipher extends Context.Service<
  Cipher,
  {
    /** The id of the master key that wraps new data keys. */
    readonly currentKeyId: string
    /** A new random data key, wrapped under the current master key. */
    readonly newDataKey: Effect.Effect<string, CipherError>
    /** Seals UTF-8 `plaintext` under the wrapped data key, bound to `associatedData`. */
    readonly seal: (dataKey: string, plaintext: string, associatedData: string) => Effect.Effect<string, CipherError>
    /** Opens a blob made by `seal` with the same data key and associated data. */
    readonly open: (dataKey: string, sealed: string, associatedData: string) => Effect.Effect<string, CipherError>
    /** The same data key, wrapped under the current master key; values sealed under it still open. */
    readonly rewrap: (dataKey: string) => Effect.Effect<string, CipherError>
    /** The id of the master key that wrapped this data key (for rotation progress). */
    readonly keyIdOf: (dataKey: string) => Effect.Effect<string, CipherError>
  }
>()("@coffer/kernel/Cipher") {}
