/**
 * Schema content: what may be saved as a schema's `content`. Seed 000 §2 requires a plain JSON object, not an
 * array, string, null or other; stored parents go through the same check when they are resolved, so a corrupt
 * row surfaces as this error naming the schema instead of as a crash halfway through a merge.
 *
 * A save also requires its text to be well-formed Unicode (`checkWellFormed`): JSON can write an unpaired UTF-16
 * surrogate (`"\ud800"`), but UTF-8 cannot carry one, and the clients a configuration is for disagree about it:
 * Swift's and Rust's JSON parsers refuse the whole document, Go's puts U+FFFD in its place, JavaScript keeps it. One
 * such string in a base schema would reach every schema that extends it. I-JSON (RFC 7493 §2.1) rules them out, and
 * so does the secrets service for secret values; a save holding one is refused with 400 before anything is stored.
 * Content stored before this rule is still read and resolved as it is.
 */
import { quote } from "@coffer/kernel"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { InvalidSchemaContent } from "./errors.js"

const isJsonObject = Schema.is(Schema.JsonObject)

/**
 * Accepts a JSON object whose every nested value is JSON (no `undefined`, `NaN`, functions, dates…). The
 * prototype check rejects class instances such as `Map` or `Date` that an in-process caller could pass: they
 * have no own keys, so the JSON check alone would let them through and `JSON.stringify` would mangle them.
 */
export const validateContent = (
  content: unknown,
  schema?: string,
): Result.Result<Schema.JsonObject, InvalidSchemaContent> =>
  isJsonObject(content) && hasPlainPrototype(content)
    ? Result.succeed(content)
    : Result.fail(
        new InvalidSchemaContent({ schema, reason: `content must be a plain JSON object, got ${describe(content)}` }),
      )

const hasPlainPrototype = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

const describe = (value: unknown): string => {
  if (value === null) return "null"
  if (value === undefined) return "nothing"
  if (Array.isArray(value)) return "an array"
  if (!Predicate.isObject(value)) return `a ${typeof value}`
  return hasPlainPrototype(value) ? "an object holding a value that is not JSON" : "an instance of a class"
}

/** With the `u` flag a surrogate pair is one code point, so this finds only unpaired surrogates. */
const UNPAIRED_SURROGATE = /\p{Cs}/u

/** Path segments kept in a message: the innermost, where the string is. */
const PATH_SHOWN = 8

/** `["a"][0]["b"]`, keys quoted as JSON (an unpaired surrogate is written `\ud800`, never sent as itself). */
const pathText = (path: ReadonlyArray<string | number>): string => {
  const shown = path.length > PATH_SHOWN ? path.slice(-PATH_SHOWN) : path
  const text = shown.map((segment) => `[${typeof segment === "number" ? segment : quote(segment)}]`).join("")
  return path.length > PATH_SHOWN ? `…${text}` : text
}

const codePointText = (text: string): string => {
  const unit = UNPAIRED_SURROGATE.exec(text)![0].charCodeAt(0)
  return `U+${unit.toString(16).toUpperCase()}`
}

/** The first key or string value holding an unpaired surrogate, depth first, as the reason to refuse the save. */
const unpairedIn = (value: Schema.Json, path: Array<string | number>): string | undefined => {
  if (typeof value === "string") {
    return UNPAIRED_SURROGATE.test(value)
      ? `the string at ${pathText(path)} holds an unpaired surrogate (${codePointText(value)})`
      : undefined
  }
  if (value === null || typeof value !== "object") return undefined
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      path.push(index)
      const found = unpairedIn(value[index]!, path)
      path.pop()
      if (found !== undefined) return found
    }
    return undefined
  }
  for (const [key, child] of Object.entries(value)) {
    path.push(key)
    const found = UNPAIRED_SURROGATE.test(key)
      ? `the key at ${pathText(path)} holds an unpaired surrogate (${codePointText(key)})`
      : unpairedIn(child, path)
    path.pop()
    if (found !== undefined) return found
  }
  return undefined
}

/** Content to be saved, refused when a key or string in it is not well-formed Unicode (see above). */
export const checkWellFormed = (content: Schema.JsonObject): Result.Result<void, InvalidSchemaContent> => {
  const found = unpairedIn(content, [])
  return found === undefined
    ? Result.void
    : Result.fail(new InvalidSchemaContent({ reason: `${found}; content must be well-formed Unicode` }))
}
