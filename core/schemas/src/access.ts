/**
 * Who is asking, as the use cases see it, and the checks every use case makes (seed 000 §5). The HTTP layer
 * builds an `Actor` from the request's credential: a person's session (with what the roles settings allow them
 * now, re-read per request) or an API token (read-only, with its platform scope). Use cases never see a cookie,
 * a header or a settings object, so the rules below hold for any front end.
 *
 * - A token reads; any write with a token is 403 (rule 2).
 * - A scoped token does not see platforms outside its list: they answer exactly as missing ones do, 404
 *   (rule 3), and `/api/schemas` leaves them out.
 * - A scoped token reads a schema only when its list covers every platform merged into the output, and a
 *   schema whose sources are unknown is covered by no scoped token (rule 4).
 */
import { Forbidden } from "@coffer/kernel"
import * as Effect from "effect/Effect"
import { PlatformNotFound } from "./errors.js"

/** A signed-in person; the predicates reflect the roles settings as they are for this request. */
export interface Person {
  readonly _tag: "Person"
  readonly email: string
  readonly canWrite: (platform: string) => boolean
  readonly canManage: boolean
}

/** An API token that passed its check. */
export interface Token {
  readonly _tag: "Token"
  readonly tokenId: string
  /** `null` reads every platform. */
  readonly platforms: ReadonlyArray<string> | null
  /**
   * The schema cache's generation as the check found it, read in the same round trip as the token's entry
   * (`checkToken`), so that the read this token makes asks the cache nothing more. Absent when there was none.
   */
  readonly generation?: string | undefined
}

export type Actor = Person | Token

/** Whether the actor may see that the platform exists. */
export const canSee = (actor: Actor, platform: string): boolean =>
  actor._tag === "Person" || actor.platforms === null || actor.platforms.includes(platform)

/** Whether the actor may read a schema with these sources (`undefined`: unknown). */
export const covers = (actor: Actor, sources: ReadonlyArray<string> | undefined): boolean => {
  if (actor._tag === "Person" || actor.platforms === null) return true
  const scope = actor.platforms
  if (sources === undefined) return false
  return sources.every((source) => scope.includes(source))
}

/** 404 for a platform outside a token's scope, as if it did not exist. */
export const requireVisible = (actor: Actor, platform: string): Effect.Effect<void, PlatformNotFound> =>
  canSee(actor, platform) ? Effect.void : Effect.fail(new PlatformNotFound({ platform }))

export const tokensAreReadOnly = () => new Forbidden({ message: "API tokens are read-only" })

/** The person making a change to `platform`, or 403. */
export const requireWriter = (actor: Actor, platform: string): Effect.Effect<Person, Forbidden> => {
  if (actor._tag === "Token") return Effect.fail(tokensAreReadOnly())
  if (!actor.canWrite(platform)) {
    return Effect.fail(new Forbidden({ message: `You do not have permission to change platform "${platform}"` }))
  }
  return Effect.succeed(actor)
}

/** The person deleting platforms or versions, or managing API tokens (the admin permission), or 403. */
export const requireManager = (actor: Actor): Effect.Effect<Person, Forbidden> => {
  if (actor._tag === "Token") return Effect.fail(tokensAreReadOnly())
  if (!actor.canManage) return Effect.fail(new Forbidden({ message: "This requires the admin permission" }))
  return Effect.succeed(actor)
}

/**
 * The person deleting `platform` or some of its versions: the admin permission and, for a platform listed in
 * `OIDC_PLATFORM_EDITORS`, one of its groups as well (admins are exempt through `canWrite`). Deleting is the
 * strongest change a platform can undergo, so whoever may not add a version to it may not remove one either.
 */
export const requireDeleter = (actor: Actor, platform: string): Effect.Effect<Person, Forbidden> =>
  Effect.flatMap(requireManager(actor), (person) =>
    person.canWrite(platform)
      ? Effect.succeed(person)
      : Effect.fail(new Forbidden({ message: `You do not have permission to change platform "${platform}"` })),
  )
