/**
 * A credential that can only read, refused before a command asks a question or prints a plan that its first write
 * would then refuse: a "Delete 3 secrets? [y/N]" answered y and then a 403 reads as if part of it happened. The
 * service still decides every write; this only says it first, from the identity the service answers.
 */
import { mayHoldScope, Role } from "@coffer/secrets"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { refused } from "./failure.js"
import type { Endpoint } from "./http.js"
import { type KeyIdentity, type Me, me } from "./secretsApi.js"

const isRole = Schema.is(Role)

/**
 * Whether an API key can only read: its scope is read, or its holder's current role is below write (a key never
 * exceeds its holder). A holder's role the service does not answer is not guessed: the key's scope decides.
 */
export const readsOnly = (key: KeyIdentity): boolean =>
  key.scope === "read" || (isRole(key.holderRole) && !mayHoldScope(key.holderRole, "write"))

/** `identity`, or the refusal naming what needed writing (`doing`: "deleting secrets") when its key only reads. */
export const requireWriter = (identity: Me, doing: string) =>
  identity.apiKey !== undefined && readsOnly(identity.apiKey)
    ? Effect.fail(refused(`this API key can only read: ${doing} needs a write key (create one under API keys)`))
    : Effect.succeed(identity)

/** Asks the service who the credential is, and refuses a key that can only read. */
export const checkWriter = (endpoint: Endpoint, doing: string) =>
  me(endpoint).pipe(Effect.flatMap((identity) => requireWriter(identity, doing)))
