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
 *
 * `make` builds the whole envelope (formats, key ids, keyring, associated data) from a small AEAD primitive,
 * so an adapter supplies only `encrypt`/`decrypt`/`randomBytes` and every adapter writes the same blobs:
 *
 * - wrapped data key: `cdk1.<masterKeyId>.<base64url(nonce || ciphertext)>`, AAD = `associatedData(["cdk1", id])`
 * - sealed value:     `csv2.<dataKeyVersion>.<base64url(nonce || ciphertext)>`,
 *                     AAD = `associatedData(["csv2", dataKeyVersion, associatedData])`
 * - sealed value, before data keys had versions: `csv1.<base64url(nonce || ciphertext)>`,
 *                     AAD = `associatedData(["csv1", associatedData])`; still opened, never written
 *
 * A project's data key has versions (1, 2, … : `coffer keys rotate --data-keys`); a `csv2` value names the version
 * that sealed it, so its reader picks that key (`sealedHeader`), and the version is bound into the AAD, so a value
 * whose header names another version does not open. A `csv1` value was sealed under version 1.
 *
 * Unwrapped data keys are kept in process memory, never anywhere else, for a bounded time and number
 * (`DataKeyMemory`: by default `DATA_KEYS_MAX`, `DATA_KEY_TTL_MS`), by the text of their wrap: a busy project's reads and writes unwrap its
 * key once, not once per value. A key leaving the memory (its time is up, the bound is reached, or `forget` is
 * called when its project is deleted or its wrap replaced) is overwritten with zeros.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { fromCanonicalBase64Url, fromUtf8Exactly, toBase64Url, toHex, utf8 } from "./encoding.js"
import {
  isDataKeyVersion,
  LEGACY_SEALED_FORMAT,
  SEALED_FORMAT,
  type SealedHeader,
  sealedPrefix,
  splitSealed,
} from "./sealedFormat.js"

export {
  LEGACY_SEALED_FORMAT,
  SEALED_FORMAT,
  type SealedHeader,
  sealedHeader,
  sealedPrefix,
} from "./sealedFormat.js"

export class CipherError extends Schema.TaggedError<CipherError>()("CipherError", {
  /** Never contains key material or plaintext. */
  message: Schema.String,
}) {}

export class Cipher extends Context.Service<
  Cipher,
  {
    /** The id of the master key that wraps new data keys. */
    readonly currentKeyId: string
    /** What every data key this keyring opens starts with: one prefix per master key it holds (`wrappedPrefix`). */
    readonly wrappedPrefixes: ReadonlyArray<string>
    /** A new random data key, wrapped under the current master key. */
    readonly newDataKey: Effect.Effect<string, CipherError>
    /**
     * Seals UTF-8 `plaintext` under the wrapped data key, bound to `associatedData`, as a `csv2` blob naming
     * `dataKeyVersion`, the version the caller keeps this data key under.
     */
    readonly seal: (
      dataKey: string,
      plaintext: string,
      associatedData: string,
      dataKeyVersion: number,
    ) => Effect.Effect<string, CipherError>
    /**
     * Opens a blob made by `seal` (or a `csv1` blob from before data keys had versions) with the same data key and
     * associated data; `sealedHeader` says which data key version and which associated data the blob needs.
     */
    readonly open: (dataKey: string, sealed: string, associatedData: string) => Effect.Effect<string, CipherError>
    /**
     * Opens many blobs sealed under one data key, in order, in one synchronous loop with the key unwrapped once
     * (an export of thousands of values); fails as `open` would on the first that does not open.
     */
    readonly openAll: (dataKey: string, blobs: ReadonlyArray<SealedBlob>) => Effect.Effect<Array<string>, CipherError>
    /** The same data key, wrapped under the current master key; values sealed under it still open. */
    readonly rewrap: (dataKey: string) => Effect.Effect<string, CipherError>
    /**
     * The id of the master key that wrapped this data key (for rotation progress). Reads the blob's header
     * only: it answers for keys that are no longer in the keyring, and fails only on a malformed blob.
     */
    readonly keyIdOf: (dataKey: string) => Effect.Effect<string, CipherError>
    /** Drops this wrapped key's unwrapped copy from memory, if one is kept (its project deleted, its wrap replaced). */
    readonly forget: (dataKey: string) => Effect.Effect<void>
  }
>()("@coffer/kernel/Cipher") {}

/** A value as `seal` made it, with the associated data it was sealed with. */
export interface SealedBlob {
  readonly sealed: string
  readonly associatedData: string
}

/** How many unwrapped data keys a process keeps at most, by default; the one used longest ago leaves first. */
export const DATA_KEYS_MAX = 1_000
/** How long an unwrapped data key is kept after it was unwrapped, by default. */
export const DATA_KEY_TTL_MS = 5 * 60_000

/** The bounds of the unwrapped data keys kept in memory (the host's `COFFER_DATA_KEYS_MAX`, `…_TTL_SECONDS`). */
export interface DataKeyMemory {
  /** Keys kept at most (at least 1). */
  readonly max: number
  /** How long each is kept after it was unwrapped. */
  readonly ttlMs: number
}

export const DEFAULT_DATA_KEY_MEMORY: DataKeyMemory = { max: DATA_KEYS_MAX, ttlMs: DATA_KEY_TTL_MS }

/** Master and data keys are 256-bit. */
export const KEY_LENGTH = 32

/** A 32-byte master key; `Redacted` so that it prints as `<redacted>` if it ever reaches a log. */
export type MasterKey = Redacted.Redacted<Uint8Array>

/** The master keys in use: `current` wraps new data keys; `previous` keys only unwrap, until `rewrap` is done. */
export interface Keyring {
  readonly current: MasterKey
  readonly previous: ReadonlyArray<MasterKey>
}

/** The AEAD an adapter supplies. Everything else (formats, key ids, keyring, AAD) is built here by `make`. */
export interface Primitives {
  /** Length of every key handed to `encrypt`/`decrypt`, in bytes. */
  readonly keyLength: 32
  /** Length of the nonce `make` draws from `randomBytes` for each encryption; it must be safe to pick at random. */
  readonly nonceLength: number
  /** Ciphertext with its authentication tag. */
  readonly encrypt: (key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array, aad: Uint8Array) => Uint8Array
  /** The plaintext; throws when the key, nonce, ciphertext or AAD does not authenticate. */
  readonly decrypt: (key: Uint8Array, nonce: Uint8Array, ciphertext: Uint8Array, aad: Uint8Array) => Uint8Array
  /** Cryptographically secure random bytes. */
  readonly randomBytes: (length: number) => Uint8Array
}

/** Format tag of a wrapped data key. */
export const DATA_KEY_FORMAT = "cdk1"

/** How a data key wrapped under master key `keyId` starts: the format, then the key's id. */
export const wrappedPrefix = (keyId: string) => `${DATA_KEY_FORMAT}.${keyId}.`

/**
 * Encodes parts as one associated-data string, each prefixed by its length (`3:abc0:`), so that no two lists
 * of parts encode alike: `["ab", "c"]` and `["a", "bc"]` differ, as do `["a:b"]` and `["a", "b"]`. The secrets use
 * cases bind project, environment, secret id, key and version with it (core/secrets `usecases/sealing.ts`).
 */
export const associatedData = (parts: ReadonlyArray<string>): string =>
  parts.map((part) => `${part.length}:${part}`).join("")

const KEY_ID_DOMAIN = utf8.encode("coffer master key id v1\0")

/**
 * The public id of a master key: the first 8 bytes of SHA-256 over a domain tag and the key, in hex. Stable for
 * a key, different across keys, and safe to print: it commits to the key without revealing any of it.
 */
export const masterKeyId = (key: MasterKey): Effect.Effect<string> =>
  Effect.promise(() => {
    const bytes = Redacted.value(key)
    const input = new Uint8Array(KEY_ID_DOMAIN.length + bytes.length)
    input.set(KEY_ID_DOMAIN)
    input.set(bytes, KEY_ID_DOMAIN.length)
    return globalThis.crypto.subtle.digest("SHA-256", input).finally(() => input.fill(0))
  }).pipe(Effect.map((digest) => toHex(new Uint8Array(digest, 0, 8))))

const DATA_KEY_PATTERN = /^cdk1\.([0-9a-f]{16})\.([A-Za-z0-9_-]+)$/
// With the `u` flag a surrogate pair is one code point, so this matches only unpaired surrogates, which UTF-8
// cannot carry: TextEncoder would silently turn them into U+FFFD and open(seal(x)) would differ from x.
const LONE_SURROGATE = /\p{Cs}/u

const fail = (message: string) => Effect.fail(new CipherError({ message }))

/**
 * Runs a primitive; whatever it throws is replaced by `message`, so no library text reaches the caller. A
 * `CipherError` thrown by this module's own code passes through: it already says what went wrong.
 */
const attempt = <A>(run: () => A, message: string) =>
  Effect.try({ try: run, catch: (error) => (error instanceof CipherError ? error : new CipherError({ message })) })

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/** Only the canonical encoding is accepted, so that no two texts stand for the same blob. */
const decodeCanonical = fromCanonicalBase64Url

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i])

/**
 * Builds the Cipher service from an AEAD primitive and a keyring. Fails when a master key is not
 * `KEY_LENGTH` bytes.
 */
export const make = Effect.fnUntraced(function* (
  primitives: Primitives,
  keyring: Keyring,
  memory: DataKeyMemory = DEFAULT_DATA_KEY_MEMORY,
): Effect.fn.Return<Cipher["Service"], CipherError> {
  if (!Number.isInteger(memory.max) || memory.max < 1 || !(memory.ttlMs > 0)) {
    return yield* fail("the data keys kept in memory need a bound of at least 1 and a positive time")
  }
  const { nonceLength } = primitives
  const ring = new Map<string, MasterKey>()
  const keys = [keyring.current, ...keyring.previous]
  for (const [index, key] of keys.entries()) {
    const bytes = Redacted.value(key)
    if (!(bytes instanceof Uint8Array) || bytes.length !== KEY_LENGTH) {
      const which = index === 0 ? "the current master key" : `previous master key #${index}`
      return yield* fail(`${which} must be ${KEY_LENGTH} bytes`)
    }
    const id = yield* masterKeyId(key)
    const known = ring.get(id)
    // Equal keys share an id harmlessly; distinct keys with one id would make unwrapping ambiguous.
    if (known !== undefined && !sameBytes(Redacted.value(known), bytes)) {
      return yield* fail(`two different master keys have the id ${id}`)
    }
    if (known === undefined) ring.set(id, key)
  }
  const currentKeyId = yield* masterKeyId(keyring.current)
  const current = keyring.current

  const wrapAad = (keyId: string) => utf8.encode(associatedData([DATA_KEY_FORMAT, keyId]))
  const sealAad = (header: SealedHeader, aad: string) =>
    utf8.encode(
      associatedData(
        header.format === LEGACY_SEALED_FORMAT
          ? [LEGACY_SEALED_FORMAT, aad]
          : [SEALED_FORMAT, String(header.dataKeyVersion), aad],
      ),
    )

  /** Splits `nonce || ciphertext`; a payload with no room for a ciphertext after the nonce is malformed. */
  const payloadOf = (text: string) => {
    const bytes = decodeCanonical(text)
    if (bytes === undefined || bytes.length <= nonceLength) return undefined
    return { nonce: bytes.subarray(0, nonceLength), ciphertext: bytes.subarray(nonceLength) }
  }

  const parseDataKey = (wrapped: string) => {
    const match = DATA_KEY_PATTERN.exec(wrapped)
    const payload = match?.[2] === undefined ? undefined : payloadOf(match[2])
    return match?.[1] === undefined || payload === undefined
      ? fail(`the data key is not a ${DATA_KEY_FORMAT} blob`)
      : Effect.succeed({ keyId: match[1], ...payload })
  }

  const wrapNow = (dataKey: Uint8Array) => {
    const nonce = primitives.randomBytes(nonceLength)
    const ciphertext = primitives.encrypt(Redacted.value(current), nonce, dataKey, wrapAad(currentKeyId))
    return `${wrappedPrefix(currentKeyId)}${toBase64Url(concat(nonce, ciphertext))}`
  }
  const wrap = (dataKey: Uint8Array) => attempt(() => wrapNow(dataKey), "could not wrap the data key")

  const unwrap = (wrapped: string) =>
    Effect.gen(function* () {
      const { keyId, nonce, ciphertext } = yield* parseDataKey(wrapped)
      const masterKey = ring.get(keyId)
      if (masterKey === undefined) {
        return yield* fail(`the data key was wrapped by master key ${keyId}, which is not in the keyring`)
      }
      const dataKey = yield* attempt(
        () => primitives.decrypt(Redacted.value(masterKey), nonce, ciphertext, wrapAad(keyId)),
        `the data key does not authenticate under master key ${keyId}: it was altered`,
      )
      if (dataKey.length !== KEY_LENGTH) {
        dataKey.fill(0)
        return yield* fail("the data key has the wrong length")
      }
      return dataKey
    })

  /** Unwrapped keys by wrap, in order of last use; each zeroed as it leaves. */
  const unwrapped = new Map<string, { readonly key: Uint8Array; readonly until: number }>()
  const drop = (wrapped: string) => {
    unwrapped.get(wrapped)?.key.fill(0)
    unwrapped.delete(wrapped)
  }
  const keep = (wrapped: string, key: Uint8Array, now: number) => {
    drop(wrapped)
    if (unwrapped.size >= memory.max) drop(unwrapped.keys().next().value!)
    unwrapped.set(wrapped, { key, until: now + memory.ttlMs })
  }
  const kept = (wrapped: string, now: number) => {
    const found = unwrapped.get(wrapped)
    if (found === undefined) return undefined
    if (found.until <= now) {
      drop(wrapped)
      return undefined
    }
    // Moved to the end: the order of the map is the order of last use.
    unwrapped.delete(wrapped)
    unwrapped.set(wrapped, found)
    return found.key
  }

  /**
   * Runs `run` with the raw data key, from memory or freshly unwrapped (and then kept); whatever it throws becomes
   * a `CipherError` with `message`. The key is taken and used in one synchronous step, so no other fiber can
   * evict (and zero) it in between.
   */
  const withDataKey = <A>(wrapped: string, run: (dataKey: Uint8Array) => A, message: string) =>
    Effect.clockWith((clock) => {
      const now = clock.currentTimeMillisUnsafe()
      const inMemory = attempt(() => {
        const key = kept(wrapped, now)
        return key === undefined ? undefined : { value: run(key) }
      }, message)
      return Effect.flatMap(inMemory, (done) =>
        done !== undefined
          ? Effect.succeed(done.value)
          : Effect.flatMap(unwrap(wrapped), (fresh) =>
              attempt(() => {
                keep(wrapped, fresh, now)
                return run(fresh)
              }, message),
            ),
      )
    })

  const checkText = (text: string, what: string) =>
    LONE_SURROGATE.test(text) ? fail(`the ${what} is not well-formed Unicode (it has a lone surrogate)`) : Effect.void

  const NOT_OPENED = "the sealed value does not open: it was altered, or belongs to another data key or associated data"
  /** A blob's header, nonce and ciphertext; throws a `CipherError` for a blob or associated data it refuses. */
  const parseSealed = (sealed: string, aad: string) => {
    const split = splitSealed(sealed)
    const payload = split === undefined ? undefined : payloadOf(split.payload)
    if (split === undefined || payload === undefined) {
      throw new CipherError({ message: `the sealed value is not a ${SEALED_FORMAT} (or ${LEGACY_SEALED_FORMAT}) blob` })
    }
    if (LONE_SURROGATE.test(aad)) {
      throw new CipherError({ message: "the associated data is not well-formed Unicode (it has a lone surrogate)" })
    }
    return { header: split, ...payload }
  }
  /** Opens a parsed blob with the raw data key. */
  const openNow = (key: Uint8Array, parsed: ReturnType<typeof parseSealed>, aad: string) => {
    const bytes = primitives.decrypt(key, parsed.nonce, parsed.ciphertext, sealAad(parsed.header, aad))
    try {
      return fromUtf8Exactly.decode(bytes)
    } finally {
      bytes.fill(0)
    }
  }

  return Cipher.of({
    currentKeyId,
    wrappedPrefixes: [...ring.keys()].map(wrappedPrefix),
    newDataKey: Effect.acquireUseRelease(
      attempt(() => primitives.randomBytes(KEY_LENGTH), "could not draw a data key"),
      wrap,
      (dataKey) => Effect.sync(() => dataKey.fill(0)),
    ),
    seal: (dataKey, plaintext, aad, dataKeyVersion) =>
      Effect.gen(function* () {
        yield* checkText(plaintext, "plaintext")
        yield* checkText(aad, "associated data")
        if (!isDataKeyVersion(dataKeyVersion)) return yield* fail("the data key version must be a positive integer")
        const header: SealedHeader = { format: SEALED_FORMAT, dataKeyVersion }
        return yield* withDataKey(
          dataKey,
          (key) => {
            const nonce = primitives.randomBytes(nonceLength)
            const ciphertext = primitives.encrypt(key, nonce, utf8.encode(plaintext), sealAad(header, aad))
            return `${sealedPrefix(dataKeyVersion)}${toBase64Url(concat(nonce, ciphertext))}`
          },
          "could not seal the value",
        )
      }),
    open: (dataKey, sealed, aad) =>
      Effect.gen(function* () {
        // A malformed blob is refused before the data key is unwrapped for it.
        const parsed = yield* attempt(() => parseSealed(sealed, aad), "the sealed value is malformed")
        return yield* withDataKey(dataKey, (key) => openNow(key, parsed, aad), NOT_OPENED)
      }),
    openAll: (dataKey, blobs) =>
      blobs.length === 0
        ? Effect.succeed([])
        : withDataKey(
            dataKey,
            (key) => {
              const values = new Array<string>(blobs.length)
              for (let i = 0; i < blobs.length; i++) {
                const { sealed, associatedData } = blobs[i]!
                values[i] = openNow(key, parseSealed(sealed, associatedData), associatedData)
              }
              return values
            },
            NOT_OPENED,
          ),
    rewrap: (dataKey) => withDataKey(dataKey, wrapNow, "could not wrap the data key"),
    keyIdOf: (dataKey) => Effect.map(parseDataKey(dataKey), ({ keyId }) => keyId),
    forget: (dataKey) => Effect.sync(() => drop(dataKey)),
  })
})
