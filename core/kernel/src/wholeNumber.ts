/**
 * Whole numbers as a query string writes them (`?limit=50&offset=0`), read the same way by both services: decimal
 * digits only, without a sign, a fraction, an exponent or a leading zero (`0` alone is zero), within the
 * parameter's range. Anything else is refused with a 400 naming the parameter and its range, rather than read as
 * something the client did not write: `1e2`, `10abc`, `+5`, ` 5` and the empty value are not numbers, and `00010`
 * is ten to one parser and eight to another.
 */
import * as Result from "effect/Result"
import { BadRequest } from "./errors.js"

/** Up to 16 digits: every safe integer (2^53 − 1 has 16), and never a text long enough to cost anything. */
const PLAIN_DIGITS = /^(?:0|[1-9][0-9]{0,15})$/

/** The inclusive range a parameter takes; both ends are safe integers. */
export interface WholeNumberRange {
  readonly min: number
  readonly max: number
}

/**
 * The value of parameter `name` written as `text`; `undefined` when the parameter is absent (the caller's
 * default applies).
 */
export const parseWholeNumber = (
  name: string,
  text: string | undefined,
  range: WholeNumberRange,
): Result.Result<number | undefined, BadRequest> => {
  if (text === undefined) return Result.succeed(undefined)
  const value = PLAIN_DIGITS.test(text) ? Number(text) : Number.NaN
  return value >= range.min && value <= range.max
    ? Result.succeed(value)
    : Result.fail(new BadRequest({ message: `${name} must be a whole number from ${range.min} to ${range.max}` }))
}
