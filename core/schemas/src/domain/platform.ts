/**
 * Platform names and kinds: what may be created.
 *
 * A name is used as a path segment (`/api/{platform}`) and as the part of an `@extends` reference before its
 * `/`, so it is held to a small alphabet: letters, digits, `.`, `_` and `-`, starting with a letter or digit,
 * at most 64 characters, never trimmed. `schemas` and `auth` are refused because `/api/schemas` (the list) and
 * `/api/auth/…` (sign-in) would shadow the platform's own paths. A leading `_` is already excluded, which keeps
 * `/api/_ui/…` clear.
 *
 * `kind` (seed 000 §2) is display information only: it never changes identifiers or resolution.
 */
import { quote } from "@coffer/kernel"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { InvalidKind, InvalidPlatformName } from "../errors.js"

export const MAX_PLATFORM_NAME_LENGTH = 64

/** Names whose paths another endpoint owns. */
export const RESERVED_PLATFORM_NAMES: ReadonlyArray<string> = ["schemas", "auth"]

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/**
 * The naming rule but its length, as one expression, for whoever checks a name before sending it (the OpenAPI
 * document): the alphabet, its first character, and no reserved name. `validatePlatformName` checks the parts one
 * by one, to say which was broken.
 */
export const PLATFORM_NAME_PATTERN = new RegExp(`^(?!(?:${RESERVED_PLATFORM_NAMES.join("|")})$)${NAME.source.slice(1)}`)

/** Checks a name for creating a platform; returns it unchanged. */
export const validatePlatformName = (name: string): Result.Result<string, InvalidPlatformName> => {
  const invalid = (reason: string) => Result.fail(new InvalidPlatformName({ name, reason }))
  if (name.length === 0) return invalid("it must not be empty")
  if (name.length > MAX_PLATFORM_NAME_LENGTH) {
    return invalid(`it is ${name.length} characters long, at most ${MAX_PLATFORM_NAME_LENGTH} are allowed`)
  }
  if (!NAME.test(name)) {
    return invalid("only letters, digits, '.', '_' and '-' are allowed, starting with a letter or digit")
  }
  if (RESERVED_PLATFORM_NAMES.includes(name)) return invalid("the name is reserved")
  return Result.succeed(name)
}

/** True when `validatePlatformName` accepts the name: no other name can belong to a stored platform. */
export const isValidPlatformName = (name: string): boolean => Result.isSuccess(validatePlatformName(name))

export const PLATFORM_KINDS = ["ios", "android", "web", "service", "custom"] as const

export const PlatformKind = Schema.Literals(PLATFORM_KINDS)
export type PlatformKind = typeof PlatformKind.Type

const isKind = Schema.is(PlatformKind)

/** Checks a `kind` from a request body; `undefined` (omitted) passes through. */
export const validateKind = (kind: unknown): Result.Result<PlatformKind | undefined, InvalidKind> => {
  if (kind === undefined || isKind(kind)) return Result.succeed(kind)
  const received = Predicate.isString(kind) ? quote(kind) : `of type ${kind === null ? "null" : typeof kind}`
  return Result.fail(new InvalidKind({ received, allowed: [...PLATFORM_KINDS] }))
}
