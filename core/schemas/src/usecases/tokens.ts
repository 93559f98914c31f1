/**
 * Managing API tokens from the dashboard (admin permission): create (the plaintext is returned once), list
 * (records only), revoke (immediate on every instance; see `../tokens.ts`). Creation and revocation are audited.
 *
 * Decisions (also in the package README): a name is a label (`@coffer/kernel` `parseLabel`: trimmed, 1–100
 * characters, no control, format or invisible characters); `platforms`, when given, is a non-empty list of
 * existing platforms (a typo would otherwise make a token that reads nothing), stored sorted and distinct; `null` or omitted means every platform, including ones created later.
 */
import {
  BadRequest,
  Cache,
  Clock,
  type Forbidden,
  Hasher,
  parseLabel,
  quote,
  Random,
  type StoreUnavailable,
} from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { type Actor, requireManager } from "../access.js"
import { isValidPlatformName } from "../domain/platform.js"
import { TokenNotFound } from "../errors.js"
import { SchemaStore, type TokenRecord } from "../SchemaStore.js"
import { audit } from "./audit.js"
import { hintOf, INVALIDATION_CHANNEL, RevokedTokens, TOKEN_PREFIX, tokenCacheKey } from "./tokenChecks.js"

/** Unknown platforms a refused token request names at most. */
const UNKNOWN_NAMED = 10

export const MAX_TOKEN_NAME_LENGTH = 100

const TOKEN_ID = /^[A-Za-z0-9_-]{1,64}$/

export interface NewToken {
  readonly name: string
  readonly platforms?: ReadonlyArray<string> | null | undefined
}

export const listTokens = Effect.fn("Schemas.listTokens")(function* (
  actor: Actor,
): Effect.fn.Return<ReadonlyArray<TokenRecord>, Forbidden | StoreUnavailable, SchemaStore> {
  yield* requireManager(actor)
  return yield* SchemaStore.use((store) => store.listTokens)
})

export const createToken = Effect.fn("Schemas.createToken")(function* (
  actor: Actor,
  input: NewToken,
): Effect.fn.Return<
  { readonly token: string; readonly record: TokenRecord },
  Forbidden | BadRequest | StoreUnavailable,
  SchemaStore | Random.Random | Hasher.Hasher | Clock.Clock
> {
  const person = yield* requireManager(actor)
  const name = yield* Effect.fromResult(parseLabel("Token name", MAX_TOKEN_NAME_LENGTH, input.name)).pipe(
    Effect.mapError((message) => new BadRequest({ message })),
  )
  const store = yield* SchemaStore
  const requested = input.platforms ?? null
  if (requested !== null && requested.length === 0) {
    return yield* new BadRequest({ message: "platforms must list at least one platform; omit it for all platforms" })
  }
  const named = requested === null ? null : [...new Set(requested)]
  const platforms = named === null ? null : [...named].sort()
  // Within the writing transaction, which a platform deletion takes too: a platform deleted meanwhile is either
  // seen gone here or taken out of this token's platforms by the deletion (SchemaStore rule 6).
  const checkPlatforms = Effect.gen(function* () {
    if (named === null) return
    const known = new Set((yield* store.listPlatforms).map((platform) => platform.name))
    const unknown = named.filter((name) => !isValidPlatformName(name) || !known.has(name))
    if (unknown.length > 0) {
      // A few names say what is wrong; a list as long as the request would not.
      const named = unknown.slice(0, UNKNOWN_NAMED).map(quote).join(", ")
      const more = unknown.length > UNKNOWN_NAMED ? ` and ${unknown.length - UNKNOWN_NAMED} more` : ""
      return yield* new BadRequest({ message: `platforms names platforms that do not exist: ${named}${more}` })
    }
  })
  const random = yield* Random.Random
  const token = yield* random.token(TOKEN_PREFIX)
  const record: TokenRecord = {
    id: yield* random.id,
    name,
    platforms,
    hint: hintOf(token),
    createdAt: yield* Clock.Clock.use((clock) => clock.now),
    createdBy: person.email,
    lastUsedAt: undefined,
  }
  const hash = yield* Hasher.Hasher.use((hasher) => hasher.sha256Hex(token))
  yield* store.transaction(
    Effect.gen(function* () {
      yield* checkPlatforms
      yield* store.insertToken({ ...record, hash })
      yield* audit(person.email, "token.create", record.id, { name, platforms })
    }),
  )
  return { token, record }
})

export const revokeToken = Effect.fn("Schemas.revokeToken")(function* (
  actor: Actor,
  id: string,
): Effect.fn.Return<
  void,
  Forbidden | TokenNotFound | StoreUnavailable,
  SchemaStore | Cache.Cache | Random.Random | Clock.Clock | RevokedTokens
> {
  const person = yield* requireManager(actor)
  // Ids are made by `Random.id`; anything else names no token and need not reach the store.
  if (!TOKEN_ID.test(id)) return yield* new TokenNotFound({ id })
  const store = yield* SchemaStore
  const cache = yield* Cache.Cache
  const removed = yield* store.transaction(
    Effect.gen(function* () {
      const token = yield* store.removeToken(id)
      if (token === undefined) return yield* new TokenNotFound({ id })
      // Before the commit: a cache that cannot be told refuses the revocation rather than keep a live entry.
      yield* cache.delete(tokenCacheKey(token.hash))
      yield* audit(person.email, "token.revoke", token.id, { name: token.name })
      return token
    }),
  )
  yield* RevokedTokens.use((revoked) => revoked.add(removed.hash))
  // A check that read the database before the commit may have cached the token again: delete once more, and
  // tell the other instances, whose subscribers delete it and remember the hash.
  yield* cache.delete(tokenCacheKey(removed.hash)).pipe(Effect.ignore)
  yield* cache
    .publish(INVALIDATION_CHANNEL, removed.hash)
    .pipe(Effect.catch((error) => Effect.logError("Could not announce a token revocation to other instances", error)))
})
