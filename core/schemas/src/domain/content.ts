/**
 * Schema content: what may be saved as a schema's `content`. Seed 000 §2 requires a plain JSON object, not an
 * array, string, null or other; stored parents go through the same check when they are resolved, so a corrupt
 * row surfaces as this error naming the schema instead of as a crash halfway through a merge.
 */
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
