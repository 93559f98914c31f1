/**
 * Caching schema reads through the Cache port (Redis when configured), without ever serving a stale schema.
 *
 * Entries are keyed by a generation (kernel `Generation`): `schemas:schema:<generation>:<platform>/<version>`.
 * Every write that can change what a read finds (a save and its cascade, a version or platform added or removed)
 * renews the generation inside its transaction, before committing (if the cache cannot be reached the write is
 * refused), and again after committing, so every older entry is abandoned at once, on every instance, and expires
 * by itself.
 *
 * Reads never depend on the cache: when it cannot be reached they go to the store, which is always right. The
 * token check is different and fails closed (see `tokens.ts`).
 */
import { Cache, Generation, type Random, type StoreUnavailable } from "@coffer/kernel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type SchemaId, schemaKey } from "./domain/schemaId.js"
import { SchemaStore, type StoredSchema } from "./SchemaStore.js"

/** How long one cached answer lives; a generation change abandons it sooner. */
export const SCHEMA_CACHE_TTL_MS = 5 * 60_000

/** The generation every cached schema answer is keyed by. */
export const SchemaGeneration: Generation.Generation = Generation.make("schemas:generation", "schema answers")

export const GENERATION_KEY = SchemaGeneration.key

/**
 * Where a committed write announces that it abandoned the cached answers. Instances sharing Redis share the
 * generation already; instances that each cache in process (Postgres without Redis) learn of another's write only
 * here, and forget their generation (`generationListener`).
 */
export const GENERATION_CHANNEL = SchemaGeneration.channel

const entryKey = (generation: string, id: SchemaId) => `schemas:schema:${generation}:${schemaKey(id)}`

/** What reading one schema finds: cached whole, misses included, since a miss is an answer too. */
export type SchemaLookup =
  | { readonly _tag: "PlatformMissing" }
  | { readonly _tag: "VersionMissing" }
  | { readonly _tag: "SchemaMissing" }
  | { readonly _tag: "Found"; readonly schema: StoredSchema }

const Entry = Schema.Union([
  Schema.TaggedStruct("PlatformMissing", {}),
  Schema.TaggedStruct("VersionMissing", {}),
  Schema.TaggedStruct("SchemaMissing", {}),
  Schema.TaggedStruct("Found", {
    content: Schema.JsonObject,
    dependencies: Schema.Array(Schema.String),
    output: Schema.JsonObject,
    sources: Schema.NullOr(Schema.Array(Schema.String)),
  }),
])
const EntryJson = Schema.fromJsonString(Entry)
const decodeEntry = Schema.decodeUnknownOption(EntryJson)
const encodeEntry = Schema.encodeSync(EntryJson)

const toEntry = (lookup: SchemaLookup): typeof Entry.Type =>
  lookup._tag === "Found"
    ? {
        _tag: "Found",
        content: lookup.schema.content,
        dependencies: lookup.schema.dependencies,
        output: lookup.schema.output,
        sources: lookup.schema.sources ?? null,
      }
    : lookup

const fromEntry = (id: SchemaId, entry: typeof Entry.Type): SchemaLookup =>
  entry._tag === "Found"
    ? {
        _tag: "Found",
        schema: {
          ...id,
          content: entry.content,
          dependencies: entry.dependencies,
          output: entry.output,
          sources: entry.sources ?? undefined,
        },
      }
    : entry

/** The answer from the store itself. */
export const lookupInStore = Effect.fnUntraced(function* (
  id: SchemaId,
): Effect.fn.Return<SchemaLookup, StoreUnavailable, SchemaStore> {
  const store = yield* SchemaStore
  const platform = yield* store.findPlatform(id.platform)
  if (platform === undefined) return { _tag: "PlatformMissing" }
  if (!platform.versions.includes(id.version)) return { _tag: "VersionMissing" }
  const schema = yield* store.findSchema(id)
  return schema === undefined ? { _tag: "SchemaMissing" } : { _tag: "Found", schema }
})

/**
 * How many answers this process keeps decoded, by entry key. An entry key names its generation, and the generation
 * is read from the cache on every lookup, so a decoded answer is served only while the cache would serve the same
 * one: a write on any instance abandons it at once. Keeping the same object also lets the route keep its bytes.
 */
export const DECODED_SCHEMAS_MAX = 1_000

/** The bound above, as the host sets it (`COFFER_DECODED_SCHEMAS_MAX`); `DECODED_SCHEMAS_MAX` unless provided. */
export const DecodedSchemasMax = Context.Reference<number>("@coffer/schemas/DecodedSchemasMax", {
  defaultValue: () => DECODED_SCHEMAS_MAX,
})

/** Per cache: two runtimes in one process (tests, two services) never share answers. */
const decodedByCache = new WeakMap<object, Map<string, SchemaLookup>>()

const remember = (decodedAnswers: Map<string, SchemaLookup>, key: string, lookup: SchemaLookup, max: number) => {
  if (decodedAnswers.size >= max) {
    const oldest = decodedAnswers.keys().next()
    if (oldest.done !== true) decodedAnswers.delete(oldest.value)
  }
  decodedAnswers.set(key, lookup)
  return lookup
}

/**
 * The schema read through the cache; the store answers whenever the cache has nothing or cannot be reached.
 * `known` is the generation when the request has read it already (with its token check), sparing a round trip.
 */
export const lookupSchema = (
  id: SchemaId,
  known?: string,
): Effect.Effect<SchemaLookup, StoreUnavailable, SchemaStore | Cache.Cache | Random.Random> =>
  Effect.flatMap(Effect.service(Cache.Cache), (cache) => {
    // The answer decoded already under the generation the request read: one step, on every token-checked read.
    const decodedHere = known === undefined ? undefined : decodedByCache.get(cache)?.get(entryKey(known, id))
    return decodedHere === undefined ? lookupThrough(cache, id, known) : Effect.succeed(decodedHere)
  })

const lookupThrough = Effect.fnUntraced(function* (
  cache: Cache.Cache["Service"],
  id: SchemaId,
  known: string | undefined,
): Effect.fn.Return<SchemaLookup, StoreUnavailable, SchemaStore | Cache.Cache | Random.Random> {
  const generation = known ?? (yield* Generation.current(SchemaGeneration))
  if (generation === undefined) return yield* lookupInStore(id)
  const key = entryKey(generation, id)
  let decodedAnswers = decodedByCache.get(cache)
  if (decodedAnswers === undefined) {
    decodedAnswers = new Map()
    decodedByCache.set(cache, decodedAnswers)
  }
  const decodedHere = decodedAnswers.get(key)
  if (decodedHere !== undefined) return decodedHere
  const cached = yield* cache.get(key).pipe(Effect.orElseSucceed(() => undefined))
  const decoded = cached === undefined ? Option.none() : decodeEntry(cached)
  if (Option.isSome(decoded))
    return remember(decodedAnswers, key, fromEntry(id, decoded.value), yield* DecodedSchemasMax)
  const found = yield* lookupInStore(id)
  yield* cache.set(key, encodeEntry(toEntry(found)), SCHEMA_CACHE_TTL_MS).pipe(Effect.ignore)
  return found
})

/**
 * Abandons every cached schema answer. Inside a writing transaction, before the commit: a failure refuses the
 * write (StoreUnavailable), which the transaction then rolls back.
 */
export const invalidateSchemas: Effect.Effect<void, StoreUnavailable, Cache.Cache | Random.Random> =
  Generation.renew(SchemaGeneration)

/** The same after a commit, announced to every instance; a failure is reported, never a failure of the write. */
export const invalidateSchemasAfterCommit: Effect.Effect<void, never, Cache.Cache | Random.Random> =
  Generation.renewAfterCommit(SchemaGeneration)

/** Forgets this instance's generation whenever a write anywhere announces one (kernel `Generation.listener`). */
export const generationListener: Layer.Layer<never, never, Cache.Cache> = Generation.listener(SchemaGeneration)
