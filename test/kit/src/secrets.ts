/**
 * For the secrets use-case tests: a world of in-memory ports with a clock the test
 * moves, people made on demand, and a real AEAD (Node's ChaCha20-Poly1305) under the kernel's envelope, so that
 * sealing and the associated-data binding are the production code paths.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { Cache, Cipher, Clock, Encoding, Hasher, MasterKeyCheck, Random } from "@coffer/kernel"
import { Accounts, type Actor, ApiKeyChecks, MemorySecretStore, SecretStore, type SessionActor } from "@coffer/secrets"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import { manualCache } from "./cache.js"

const TAG = 16

/** ChaCha20-Poly1305 (12-byte nonces) from node:crypto: a test stand-in for the XChaCha20 adapter. */
export const nodeAead: Cipher.Primitives = {
  keyLength: 32,
  nonceLength: 12,
  encrypt: (key, nonce, plaintext, aad) => {
    const cipher = createCipheriv("chacha20-poly1305", key, nonce, { authTagLength: TAG })
    cipher.setAAD(aad, { plaintextLength: plaintext.length })
    return new Uint8Array(Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]))
  },
  decrypt: (key, nonce, ciphertext, aad) => {
    const decipher = createDecipheriv("chacha20-poly1305", key, nonce, { authTagLength: TAG })
    decipher.setAAD(aad, { plaintextLength: ciphertext.length - TAG })
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG))
    return new Uint8Array(
      Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - TAG)), decipher.final()]),
    )
  },
  randomBytes: (length) => new Uint8Array(randomBytes(length)),
}

export const newMasterKey = () => Redacted.make(new Uint8Array(randomBytes(32)))

export const cipherLayer = (keyring: Cipher.Keyring) => Layer.effect(Cipher.Cipher, Cipher.make(nodeAead, keyring))

/**
 * A value in the `csv1` format, the one written before data keys had versions, sealed here independently of the
 * kernel (which no longer writes it) under `wrappedDataKey` (a `cdk1` wrap made with `nodeAead`): what an upgraded
 * database holds, for the tests that it still opens and is re-sealed.
 */
export const legacySeal = (masterKey: Cipher.MasterKey, wrappedDataKey: string, plaintext: string, aad: string) => {
  const [format, keyId, payload] = wrappedDataKey.split(".")
  const wrapped = Encoding.fromBase64Url(payload ?? "")
  if (format !== "cdk1" || keyId === undefined || wrapped === undefined) throw new Error("not a cdk1 data key")
  const text = new TextEncoder()
  const dataKey = nodeAead.decrypt(
    Redacted.value(masterKey),
    wrapped.subarray(0, nodeAead.nonceLength),
    wrapped.subarray(nodeAead.nonceLength),
    text.encode(Cipher.associatedData(["cdk1", keyId])),
  )
  const nonce = nodeAead.randomBytes(nodeAead.nonceLength)
  const sealed = nodeAead.encrypt(
    dataKey,
    nonce,
    text.encode(plaintext),
    text.encode(Cipher.associatedData(["csv1", aad])),
  )
  return `csv1.${Encoding.toBase64Url(new Uint8Array([...nonce, ...sealed]))}`
}

/** Accounts kept in a map; only what the use cases call is implemented. */
const accountsFixture = () => {
  const users = new Map<string, Accounts.User>()
  const unused = () => Effect.die("not used by the secrets use cases")
  const service = Accounts.Accounts.of({
    findById: (id) => Effect.sync(() => users.get(id)),
    findByEmail: (email) => Effect.sync(() => [...users.values()].find((user) => user.email === email)),
    findByIdentity: unused,
    create: unused,
    updateEmail: unused,
    link: unused,
    unlink: unused,
    list: unused,
  })
  return { users, service }
}

export const START = Date.parse("2026-01-01T00:00:00.000Z")

/**
 * A fresh world: store, accounts, cipher, cache, clock; `run` executes a use case in it. `store` wraps the memory
 * store, for a test that changes what one of its methods does (a concurrent request that comes first).
 */
export const makeWorld = (
  options: {
    readonly keyring?: Cipher.Keyring
    readonly store?: (store: SecretStore.SecretStore["Service"]) => SecretStore.SecretStore["Service"]
  } = {},
) => {
  const clock = Clock.makeManual(START)
  const accounts = accountsFixture()
  const memory = MemorySecretStore.make(accounts.service)
  const store = options.store === undefined ? memory : options.store(memory)
  const keyring = options.keyring ?? { current: newMasterKey(), previous: [] }
  const cache = manualCache(() => Effect.runSync(clock.clock.now))
  const cacheLayer = Layer.succeed(Cache.Cache, cache.cache)
  const layer = Layer.mergeAll(
    Layer.succeed(SecretStore.SecretStore, store),
    Layer.succeed(Accounts.Accounts, accounts.service),
    Layer.succeed(Clock.Clock, clock.clock),
    cacheLayer,
    ApiKeyChecks.KeyChecks.layer.pipe(Layer.provide(cacheLayer)),
    Random.layer,
    Hasher.layer,
    cipherLayer(keyring),
    MasterKeyCheck.layerMemory,
  )
  const runtime = ManagedRuntime.make(layer)
  let count = 0
  return {
    clock,
    store,
    /** The accounts by id, as the Accounts port answers them; tests change or remove one here. */
    users: accounts.users,
    keyring,
    /** The cache's entries, and its switch: `cache.state.down = true` fails every call as an outage does. */
    cache,
    runtime,
    run: <A, E>(effect: Effect.Effect<A, E, Layer.Success<typeof layer>>) => runtime.runPromise(effect),
    exit: <A, E>(effect: Effect.Effect<A, E, Layer.Success<typeof layer>>) => runtime.runPromiseExit(effect),
    /** A new person, signed in. */
    person: (email = `person${++count}@example.com`): SessionActor => {
      const user = { id: `user-${++count}`, email, createdAt: START }
      accounts.users.set(user.id, user)
      return { kind: "session", userId: user.id, email, ipAddress: "203.0.113.7" }
    },
  }
}

export type World = ReturnType<typeof makeWorld>
export type { Actor }

/** The typed failure of an exit as `{ _tag, message }`, or the exit itself when it did not fail that way. */
export const failure = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return { success: exit.value }
  const error = Cause.findError(exit.cause)
  if (error._tag !== "Success") return { cause: Cause.pretty(exit.cause) }
  const value = error.success as { _tag: string; message: string }
  return { _tag: value._tag, message: value.message }
}
