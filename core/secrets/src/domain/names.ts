/**
 * The naming rules of seed 001 §2 for what people type: environment names, secret keys and secret values.
 *
 * Each parser takes raw input and answers a `Result`: the value, branded so that a use case cannot skip the
 * check, or a typed error whose message says exactly what is wrong (it reaches the client as a 400/413 body).
 * They are pure; a use case lifts them with `Effect.fromResult`.
 *
 * Names are ASCII only and case-sensitive: they travel in URL paths and become shell variable names in
 * `.env` exports, where anything else would need escaping or would not be portable.
 */
import type * as Brand from "effect/Brand"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

/** An input that breaks a naming rule; maps to 400. The message names the rule that was broken. */
export class InvalidName extends Schema.TaggedError<InvalidName>()("InvalidName", {
  /** Which input was wrong, so a client can point at the right form field. */
  field: Schema.Literals(["projectName", "environmentName", "secretKey"]),
  message: Schema.String,
}) {}

/** A secret value over the size limit; maps to 413. Carries sizes only, never the value. */
export class ValueTooLarge extends Schema.TaggedError<ValueTooLarge>()("ValueTooLarge", {
  /** The value's size in UTF-8 bytes. */
  size: Schema.Number,
  /** The largest size allowed, in UTF-8 bytes. */
  limit: Schema.Number,
  message: Schema.String,
}) {}

export type EnvironmentName = Brand.Branded<string, "EnvironmentName">
export type SecretKey = Brand.Branded<string, "SecretKey">
export type SecretValue = Brand.Branded<string, "SecretValue">

/** Seed 001 §8. */
export const ENVIRONMENT_NAME_MAX_LENGTH = 64
/** Seed 001 §8. */
export const SECRET_KEY_MAX_LENGTH = 256
/**
 * 64 KiB. The seed sets no limit; this one is far above any real credential or certificate chain and keeps
 * one request, one ciphertext row and one export line of bounded size.
 */
export const SECRET_VALUE_MAX_BYTES = 64 * 1024

/** The environments every new project starts with (seed 001 §2). */
export const DEFAULT_ENVIRONMENTS = ["development", "staging", "production"] as const

const NAME_ALPHABET = /^[A-Za-z0-9_.-]*$/

/**
 * The naming rule but its length, as one expression, for whoever checks a name before sending it (the OpenAPI
 * document): at least one character of the alphabet, and not `.` or `..`. `parseName` checks the parts one by one,
 * to say which was broken.
 */
export const NAME_PATTERN = /^(?!\.\.?$)[A-Za-z0-9_.-]+$/
const OUTSIDE_ALPHABET = /[^A-Za-z0-9_.-]/u

const parseName = <B>(
  field: "environmentName" | "secretKey",
  label: string,
  maxLength: number,
  input: string,
): Result.Result<B, InvalidName> => {
  const fail = (message: string) => Result.fail(new InvalidName({ field, message }))
  if (input.length === 0) return fail(`${label} must not be empty`)
  if (!NAME_ALPHABET.test(input)) {
    // The `u` flag makes the offending character a whole code point, so an emoji is quoted intact.
    const found = OUTSIDE_ALPHABET.exec(input)?.[0] ?? ""
    return fail(
      `${label} may contain only letters A-Z and a-z, digits, "_", "-" and "."; found ${JSON.stringify(found)}`,
    )
  }
  // Checked after the alphabet, so this length is in characters and bytes alike.
  if (input.length > maxLength) return fail(`${label} must be at most ${maxLength} characters, got ${input.length}`)
  // "." and ".." are path segments that URL normalisation folds away (`/environments/..` is the project),
  // so such a name could never be addressed again.
  if (input === "." || input === "..") return fail(`${label} must not be "." or ".."`)
  return Result.succeed(input as B)
}

/** An environment name: letters, digits, `_`, `-`, `.`; 1 to 64 characters; not `.` or `..`. */
export const parseEnvironmentName = (input: string): Result.Result<EnvironmentName, InvalidName> =>
  parseName("environmentName", "Environment name", ENVIRONMENT_NAME_MAX_LENGTH, input)

/** A secret key: letters, digits, `_`, `-`, `.`; 1 to 256 characters; not `.` or `..`. */
export const parseSecretKey = (input: string): Result.Result<SecretKey, InvalidName> =>
  parseName("secretKey", "Secret key", SECRET_KEY_MAX_LENGTH, input)

/** Whether `key` is one the naming rules allow: stored data may hold others, written by an earlier implementation. */
export const isSecretKey = (key: string): boolean => Result.isSuccess(parseSecretKey(key))

/**
 * The number of bytes `value` takes in UTF-8, counted without encoding it. An unpaired surrogate counts as
 * the 3 bytes of the U+FFFD that `TextEncoder` writes in its place.
 */
export const utf8ByteLength = (value: string): number => {
  let bytes = 0
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 3
    } else bytes += 3
  }
  return bytes
}

/** A secret value: any string, the empty string included, of at most 64 KiB in UTF-8. */
export const parseSecretValue = (input: string): Result.Result<SecretValue, ValueTooLarge> => {
  const size = utf8ByteLength(input)
  if (size <= SECRET_VALUE_MAX_BYTES) return Result.succeed(input as SecretValue)
  return Result.fail(
    new ValueTooLarge({
      size,
      limit: SECRET_VALUE_MAX_BYTES,
      message: `Secret value is ${size} bytes; at most ${SECRET_VALUE_MAX_BYTES} bytes (64 KiB) are allowed`,
    }),
  )
}
