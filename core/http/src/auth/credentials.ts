/**
 * Who is calling, for both services (seed 000 §5, seed 001 §5): the one place that reads a request's
 * credentials. A request names its caller one of two ways: `Authorization: Bearer <token>`, or the session
 * cookie. When the header is present it decides alone, so a script's token is never silently replaced by a
 * browser's cookie. A session-cookie request that names the person it was made for is refused (412) when the
 * session is someone else's (`session.ts`); a bearer request's header decides alone, so that name is not read.
 *
 * Failed credentials (a header that is not a bearer token, a token the service refuses, a session cookie that
 * names no live session) count against the client's rate limit in the group `<service>:credentials`
 * (DESIGN.md "Rate limits"), so guessing is slowed without ever limiting a caller whose credentials work. No
 * credential at all is not a failed one. What a token or a session stands for is the service's own business:
 * each parameterizes this module with its resolver (`schemas/context.ts`, `secrets/context.ts`).
 */
import {
  type Cache,
  type Sessions,
  type SignedInAsSomeoneElse,
  type StoreUnavailable,
  type TooManyRequests,
  Unauthorized,
} from "@coffer/kernel"
import * as Effect from "effect/Effect"
import type { Context } from "hono"
import { header } from "../request/header.js"
import { sessionCookieName } from "./cookie.js"
import { limitAttempt } from "./rateLimit.js"
import { currentSession, notSignedIn } from "./session.js"

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

/** The token of an `Authorization: Bearer <token>` header, or `undefined` for any other form. */
export const bearerToken = (authorization: string): string | undefined => BEARER.exec(authorization)?.[1]

/** The rate-limit group of a service's failed credential checks. */
export const credentialsGroup = (service: string) => `${service}:credentials`

/** How a service reads the caller `A` from a request. */
export interface CredentialResolver<A, E, R> {
  /** Names the rate-limit group (`credentialsGroup`). */
  readonly service: string
  /** Attempts per client and minute (`settings.rateLimit`). */
  readonly limit: number
  readonly clientAddress?: ((c: Context) => string | undefined) | undefined
  /** The service's public origin: the session cookie's name follows its scheme. */
  readonly publicOrigin: string | undefined
  /** The 401 message for an `Authorization` header that is not a bearer token. */
  readonly malformed: string
  /** The 401 for a request with no credential at all, made only when it is the answer. */
  readonly anonymous: () => Unauthorized
  /** The caller a bearer token stands for; its `Unauthorized` counts as a failed credential. */
  readonly byToken: (token: string) => Effect.Effect<A, E | Unauthorized, R>
  /** The caller a live session stands for. */
  readonly bySession: (session: Sessions.Session) => Effect.Effect<A, E, R>
}

export type CredentialError = Unauthorized | SignedInAsSomeoneElse | TooManyRequests | StoreUnavailable

/** The caller of this request as `resolver` reads it, or 401; failed credentials count against the client. */
export const credentialsOf = <A, E, R>(
  c: Context,
  resolver: CredentialResolver<A, E, R>,
): Effect.Effect<A, E | CredentialError, R | Sessions.Sessions | Cache.Cache> => {
  const failed = (error: Unauthorized) =>
    limitAttempt(c, {
      group: credentialsGroup(resolver.service),
      limit: resolver.limit,
      clientAddress: resolver.clientAddress,
    }).pipe(Effect.andThen(Effect.fail(error)))
  const authorization = header(c, "Authorization")
  if (authorization !== undefined) {
    const token = bearerToken(authorization)
    if (token === undefined) return failed(new Unauthorized({ message: resolver.malformed }))
    const refused = (error: unknown): error is Unauthorized => error instanceof Unauthorized
    return resolver.byToken(token).pipe(Effect.catchIf(refused, failed))
  }
  return Effect.flatMap(
    currentSession(c, resolver.service, resolver.publicOrigin),
    (session): Effect.Effect<A, E | CredentialError, R | Cache.Cache> => {
      if (session !== undefined) return resolver.bySession(session)
      // A cookie that names no live session is a failed credential; no credential at all is not.
      return header(c, "Cookie")?.includes(`${sessionCookieName(resolver.service, resolver.publicOrigin)}=`) === true
        ? failed(notSignedIn())
        : Effect.fail(resolver.anonymous())
    },
  )
}
