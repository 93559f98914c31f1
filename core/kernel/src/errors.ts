/**
 * Generic request errors that any use case or HTTP helper may fail with, when no domain error says more.
 *
 * They are plain tagged values: no HTTP status lives here. `core/http` owns the one table that turns each
 * `_tag` into a status and a `{ error: message }` body, so domain packages stay free of transport concerns.
 * Every `message` is shown to the caller as is: it must never contain a secret value or a credential.
 */
import * as Schema from "effect/Schema"

/** The input is invalid: a bad or missing field, malformed JSON, JSON nested too deeply. */
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", {
  message: Schema.String,
}) {}

/** No credential, or an unknown, revoked or expired one. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  message: Schema.String,
}) {}

/**
 * The request named the person it was made for (`Coffer-Expected-User`) and its session cookie is someone else's:
 * a page loaded for one person, sending after another signed in in the same browser. Nothing is done for it.
 */
export class SignedInAsSomeoneElse extends Schema.TaggedError<SignedInAsSomeoneElse>()("SignedInAsSomeoneElse", {
  message: Schema.String,
}) {}

/** The caller is known but may not do this. Where the seeds say so, use `NotFound` instead, to hide existence. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String,
}) {}

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String,
}) {}

export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  message: Schema.String,
}) {}

/** The request body is larger than the limit (1 MiB, DESIGN.md "Limits on input"). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  message: Schema.String,
}) {}

/** A write whose body is not `application/json` (DESIGN.md "Security decisions"). */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  message: Schema.String,
}) {}

/** The path exists, but not for the request's method: `allow` lists those it answers. */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  message: Schema.String,
  allow: Schema.Array(Schema.String),
}) {}

/** A rate limit was reached; the caller may try again after `retryAfterSeconds`. */
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", {
  message: Schema.String,
  retryAfterSeconds: Schema.Int,
}) {}
