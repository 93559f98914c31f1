/**
 * For the schemas use-case tests: a manual clock, actors, and an environment that runs use cases on the in-memory
 * store as a host would, one runtime per "instance" over storage they share, with a cache that can be taken down
 * and brought back.
 */
import { Cache, Clock, Hasher, Random } from "@coffer/kernel"
import { type Access, MemorySchemaStore, SchemaCache, SchemaStore, Tokens } from "@coffer/schemas"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { manualCache } from "./cache.js"

type Person = Access.Person
type Token = Access.Token

export const T0 = Date.UTC(2026, 0, 31, 12, 0, 0)

export const admin: Person = { _tag: "Person", email: "admin@example.com", canWrite: () => true, canManage: true }
export const editor: Person = { _tag: "Person", email: "editor@example.com", canWrite: () => true, canManage: false }
export const viewer: Person = { _tag: "Person", email: "viewer@example.com", canWrite: () => false, canManage: false }
export const tokenFor = (platforms: ReadonlyArray<string> | null): Token => ({
  _tag: "Token",
  tokenId: "test-token",
  platforms,
})

export type Services = SchemaStore | Cache.Cache | Clock.Clock | Random.Random | Hasher.Hasher | Tokens.RevokedTokens

/**
 * Shared storage (one store, one cache, one clock) and `instance()` to start a runtime over it, as one host
 * process would: each instance has its own revocation memory. `run` uses the first instance.
 */
export const makeEnvironment = (store?: SchemaStore["Service"]) => {
  const clock = Clock.makeManual(T0)
  const cache = manualCache(() => Effect.runSync(clock.clock.now))
  const shared = Effect.runSync(store === undefined ? MemorySchemaStore.make : Effect.succeed(store))
  const base = Layer.mergeAll(
    Layer.succeed(SchemaStore, shared),
    Layer.succeed(Cache.Cache, cache.cache),
    Layer.succeed(Clock.Clock, clock.clock),
    Random.layer,
    Hasher.layer,
  )
  const runtimes: Array<ManagedRuntime.ManagedRuntime<Services, never>> = []
  const instance = () => {
    const runtime = ManagedRuntime.make(
      Layer.provideMerge(Layer.merge(Tokens.RevokedTokens.layer, SchemaCache.generationListener), base),
    )
    runtimes.push(runtime)
    return {
      run: <A, E>(effect: Effect.Effect<A, E, Services>): Promise<A> => runtime.runPromise(effect),
      flip: <A, E>(effect: Effect.Effect<A, E, Services>): Promise<E> => runtime.runPromise(Effect.flip(effect)),
    }
  }
  const first = instance()
  return {
    ...first,
    instance,
    store: shared,
    cache,
    clock,
    dispose: () => Promise.all(runtimes.map((runtime) => runtime.dispose())),
  }
}
