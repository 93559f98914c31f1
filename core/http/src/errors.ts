/**
 * THE one place where errors become HTTP responses (DESIGN.md "Shape"): a table keyed by `_tag`.
 *
 * Why a table here rather than a `status` on each error class: statuses are a transport concern, and the
 * domain packages must not know about HTTP; keeping every row in one file also makes the whole mapping
 * reviewable at a glance. The table is typed against `HttpError`, the union of every error a route may fail
 * with, so a new error cannot be forgotten: adding it to the union without a row, or a row without adding it
 * to the union, fails the type check, and `handle` (runtime.ts) refuses an effect whose errors have no row.
 *
 * To register a domain error: import its class below, add it to `HttpError`, and add one row to `rules`,
 * either a status (the body is then `{ error: error.message }`) or a function for errors whose body carries
 * more fields (409 `blockedBy`) or whose response needs headers (429 `Retry-After`).
 *
 * Anything else (a defect, an unknown tag, an interruption) answers without detail: 500
 * `{ error: "Internal server error" }`, never a stack trace.
 */
import type {
  BadRequest,
  Conflict,
  Forbidden,
  Identity,
  MasterKeyCheck,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  SignedInAsSomeoneElse,
  SignIn,
  StoreUnavailable,
  TooManyRequests,
  Unauthorized,
  UnsupportedMediaType,
} from "@coffer/kernel"
import type {
  CircularDependency,
  DeletionBlocked,
  InvalidKind,
  InvalidPlatformName,
  InvalidReference,
  InvalidSchemaContent,
  InvalidVersion,
  PlatformExists,
  PlatformNotFound,
  ResolutionLimit,
  RevisionNotFound,
  SchemaNotFound,
  SchemaSavedMeanwhile,
  TokenNotFound,
  Unresolved,
  VersionExists,
  VersionNotFound,
} from "@coffer/schemas"
import type {
  AccountLinkRequired,
  AlreadyMember,
  ApiKeyNotFound,
  ApiKeyRotatedMeanwhile,
  CliLoginNotFound,
  CliLoginRefused,
  EnvironmentExists,
  EnvironmentGone,
  EnvironmentNotFound,
  InvalidName,
  InviteNotFound,
  InviteNotPending,
  MemberNotFound,
  ProjectExists,
  ProjectGone,
  ProjectNotFound,
  SecretChangedMeanwhile,
  SecretNotFound,
  SecretUnreadable,
  SecretVersionNotFound,
  ValueTooLarge,
  VersionConflict,
} from "@coffer/secrets"
import { CliLoginWait } from "@coffer/secrets"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { Context } from "hono"
import type { ContentfulStatusCode } from "hono/utils/http-status"

/** Every error a route may fail with. Domain packages add their error classes here, with a row in `rules`. */
export type HttpError =
  | BadRequest
  | Unauthorized
  | SignedInAsSomeoneElse
  | Forbidden
  | NotFound
  | MethodNotAllowed
  | Conflict
  | PayloadTooLarge
  | UnsupportedMediaType
  | TooManyRequests
  | StoreUnavailable
  | MasterKeyCheck.MasterKeyMismatch
  | SignIn.SignInOff
  | AccountLinkRequired
  | InvalidName
  | ValueTooLarge
  | ProjectNotFound
  | EnvironmentNotFound
  | SecretNotFound
  | SecretVersionNotFound
  | MemberNotFound
  | InviteNotFound
  | InviteNotPending
  | ApiKeyNotFound
  | ProjectGone
  | EnvironmentGone
  | ProjectExists
  | EnvironmentExists
  | AlreadyMember
  | ApiKeyRotatedMeanwhile
  | CliLoginNotFound
  | CliLoginRefused
  | SecretChangedMeanwhile
  | VersionConflict
  | SecretUnreadable
  | Identity.IdentityError
  | InvalidVersion
  | InvalidSchemaContent
  | InvalidReference
  | Unresolved
  | CircularDependency
  | ResolutionLimit
  | InvalidPlatformName
  | InvalidKind
  | PlatformNotFound
  | VersionNotFound
  | SchemaNotFound
  | SchemaSavedMeanwhile
  | RevisionNotFound
  | TokenNotFound
  | PlatformExists
  | VersionExists
  | DeletionBlocked

/** The body of every error (seed 000 §2 "Error body", seed 001 §7); the OpenAPI document shows it. */
export const ErrorBody = Schema.Struct({ error: Schema.String }).annotate({
  identifier: "Error",
  description: "Every error answer: a message for people, never a stack trace, a secret or a credential",
})

/** A deletion refused because schemas still extend the target (DESIGN.md "409 on blocked deletion"). */
export const DeletionBlockedBody = Schema.Struct({
  error: Schema.String,
  blockedBy: Schema.Array(
    Schema.Struct({ platform: Schema.String, version: Schema.String, extends: Schema.String }).annotate({
      description: "A schema that still extends the target, and its `@extends` reference as written",
    }),
  ),
}).annotate({ identifier: "DeletionBlocked" })

/**
 * A secret write refused with 409: a check-and-set that found another version (`currentVersion`), or, without one,
 * contention the retries did not outlast (`error` alone).
 */
export const SecretWriteConflictBody = Schema.Struct({
  error: Schema.String,
  currentVersion: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))).annotate({
    description:
      "The version the secret is at now (0: it does not exist), when `expectedVersion` was given and differs from it",
  }),
}).annotate({ identifier: "SecretWriteConflict" })

/**
 * A schema save refused with 409 because it named the revision it was edited from (`expectedRevision`) and the
 * schema has been saved since: `revision` says which one it is at now.
 */
export const SchemaSavedMeanwhileBody = Schema.Struct({
  error: Schema.String,
  revision: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
    description: "The revision the schema is at now (0: no content saved); a save on top of it names this one",
  }),
}).annotate({ identifier: "SchemaSavedMeanwhile" })

/** A command-line login poll that receives no key yet: RFC 8628 §3.5's error codes beside the message. */
export const CliLoginRefusedBody = Schema.Struct({
  error: Schema.String,
  code: Schema.optionalKey(CliLoginWait).annotate({
    description:
      "Absent when the body itself is malformed. `authorization_pending`: poll again after `interval`; `slow_down`: wait 5 s longer; `access_denied`: the " +
      "person denied it; `expired_token`: unknown, expired or already used",
  }),
}).annotate({ identifier: "CliLoginRefused" })

export interface ErrorResponse {
  readonly status: ContentfulStatusCode
  /** Always has `error`; some errors add fields (seeds: `{ error, blockedBy }` on a blocked deletion). */
  readonly body: { readonly error: string } & Readonly<Record<string, unknown>>
  readonly headers?: Readonly<Record<string, string>>
}

/** A bare status answers `{ error: error.message }`; a function decides the whole response. */
export type Rule<E> = ContentfulStatusCode | ((error: E) => ErrorResponse)

export type Rules = { readonly [Tag in HttpError["_tag"]]: Rule<Extract<HttpError, { readonly _tag: Tag }>> }

export const INTERNAL_ERROR_MESSAGE = "Internal server error"
export const UNAVAILABLE_MESSAGE = "Service unavailable"

const identityStatus = {
  expired: 400,
  rejected: 400,
  email: 400,
  refused: 403,
  unavailable: 503,
} as const satisfies Record<Identity.IdentityError["reason"], ContentfulStatusCode>

const rules: Rules = {
  BadRequest: 400,
  Unauthorized: 401,
  // A precondition the request's own header states (the person it was made for) that the session does not meet.
  SignedInAsSomeoneElse: 412,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  PayloadTooLarge: 413,
  UnsupportedMediaType: 415,
  MethodNotAllowed: (error) => ({
    status: 405,
    body: { error: error.message },
    headers: { Allow: error.allow.join(", ") },
  }),
  TooManyRequests: (error) => ({
    status: 429,
    body: { error: error.message },
    headers: { "Retry-After": String(Math.max(1, error.retryAfterSeconds)) },
  }),
  // The message names the failing store for operators (it is logged); callers learn only that it failed,
  // and a check that could not be made fails closed (DESIGN.md "Token checks fail closed").
  StoreUnavailable: () => ({ status: 503, body: { error: UNAVAILABLE_MESSAGE } }),
  // Only `/readyz` meets it: the operator's probe learns which setting is wrong (it names no key).
  MasterKeyMismatch: 503,
  // Seed 001 §7: OIDC not configured.
  SignInOff: 404,
  AccountLinkRequired: 409,
  // Secrets (seed 001 §7): naming rules and the value limit, then the three 409s of the seed.
  InvalidName: 400,
  ValueTooLarge: 413,
  // What is missing, or out of the actor's reach, which must look the same (§5 rule 4).
  ProjectNotFound: 404,
  EnvironmentNotFound: 404,
  SecretNotFound: 404,
  SecretVersionNotFound: 404,
  MemberNotFound: 404,
  InviteNotFound: 404,
  InviteNotPending: 404,
  ApiKeyNotFound: 404,
  // Deleted while a write under it was under way: as missing as if it had never been.
  ProjectGone: 404,
  EnvironmentGone: 404,
  ProjectExists: 409,
  EnvironmentExists: 409,
  AlreadyMember: 409,
  // Of two rotations of one key at once, the one whose new value was not stored (that value would never work).
  ApiKeyRotatedMeanwhile: 409,
  CliLoginNotFound: 404,
  // A poll that receives no key: RFC 8628 §3.5 answers 400 with a code that tells the command what to do next.
  CliLoginRefused: (error) => ({ status: 400, body: { error: error.message, code: error.code } }),
  // A check-and-set write (`expectedVersion`) that found the secret at another version; the body says which, so a
  // client can offer to replace it knowingly.
  SecretChangedMeanwhile: (error) => ({
    status: 409,
    body: { error: error.message, currentVersion: error.currentVersion },
  }),
  // Only under contention the use case's retries did not outlast: the caller may simply send it again.
  VersionConflict: 409,
  // Stored data that does not decrypt is the server's fault; the message says so without any detail.
  SecretUnreadable: 500,
  // A failed sign-in or logout token (seed 001 §4): the caller's fault is 400, a person declining at the
  // provider 403, a provider that cannot be reached 503. Messages never carry codes or tokens.
  IdentityError: (error) => ({ status: identityStatus[error.reason], body: { error: error.message } }),
  // Schemas (seed 000 §7): invalid input, including a schema that cannot be resolved, is 400; what is missing (or
  // outside a token's scope) 404; a taken name, a blocked deletion and a save overtaken by another 409, the last two
  // saying what blocks them.
  InvalidVersion: 400,
  InvalidSchemaContent: 400,
  InvalidReference: 400,
  Unresolved: 400,
  CircularDependency: 400,
  ResolutionLimit: 400,
  InvalidPlatformName: 400,
  InvalidKind: 400,
  PlatformNotFound: 404,
  VersionNotFound: 404,
  SchemaNotFound: 404,
  RevisionNotFound: 404,
  TokenNotFound: 404,
  PlatformExists: 409,
  VersionExists: 409,
  // A check-and-set save (`expectedRevision`) that found the schema saved since; the body says at which revision, so
  // a client can show the newer content and save on top of it knowingly.
  SchemaSavedMeanwhile: (error) => ({ status: 409, body: { error: error.message, revision: error.revision } }),
  DeletionBlocked: (error) => ({
    status: 409,
    body: { error: error.message, blockedBy: error.blockedBy.map((blocker) => ({ ...blocker })) },
  }),
}

export const internalError: ErrorResponse = { status: 500, body: { error: INTERNAL_ERROR_MESSAGE } }
export const unavailable: ErrorResponse = { status: 503, body: { error: UNAVAILABLE_MESSAGE } }

/** Whether `error` has a row in the table; values with unknown tags are defects as far as HTTP is concerned. */
export const isHttpError = (error: unknown): error is HttpError =>
  Predicate.hasProperty(error, "_tag") &&
  Predicate.isString(error._tag) &&
  Object.hasOwn(rules, error._tag) &&
  Predicate.hasProperty(error, "message") &&
  Predicate.isString(error.message)

/** The response for a known error, or the anonymous 500 for anything else. */
export const toErrorResponse = (error: unknown): ErrorResponse => {
  if (!isHttpError(error)) return internalError
  const rule = rules[error._tag] as Rule<HttpError>
  return typeof rule === "number" ? { status: rule, body: { error: error.message } } : rule(error)
}

export const respond = (c: Context, response: ErrorResponse): Response =>
  c.json(response.body, response.status, response.headers ? { ...response.headers } : undefined)

/** Answers `error` through the table: for middleware that rejects a request before any route runs. */
export const errorResponse = (c: Context, error: HttpError): Response => respond(c, toErrorResponse(error))
