/**
 * The `@extends` directive: reading it from schema content (a string or an array of strings, DESIGN.md) and
 * parsing each reference, `<platform>` or `<platform>/<spec>`, into the platform and a version spec.
 *
 * Platform names cannot contain `/`, so a reference splits at its first `/`; versions may contain `+` and `-`,
 * so the spec is recognised by its leading operator, never by searching for those characters.
 */
import { quote } from "@coffer/kernel"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import { InvalidReference, InvalidSchemaContent } from "./errors.js"
import { validatePlatformName } from "./platform.js"
import { validateVersion } from "./version.js"

/** The content key holding the inheritance directive; it never reaches a resolved output. */
export const EXTENDS_KEY = "@extends"

/** The range operators seed 000 §2 allows: caret, tilde and at-least. */
export type RangeOperator = "^" | "~" | ">="

/** What a reference asks for on its platform. */
export type VersionSpec =
  | { readonly _tag: "Exact"; readonly version: string }
  | { readonly _tag: "Latest" }
  | { readonly _tag: "Range"; readonly operator: RangeOperator; readonly version: string }

/** One parsed `@extends` reference. */
export interface ExtendsRef {
  /** The reference as written, kept for `dependencies` and error messages. */
  readonly raw: string
  readonly platform: string
  readonly spec: VersionSpec
}

// Longest operator first, so that ">=" is never read as an unknown ">" operator.
const RANGE_OPERATORS: ReadonlyArray<RangeOperator> = [">=", "^", "~"]

/**
 * Parses one reference. The platform must be a name a platform may have, range operands full versions (`^1.2.3`,
 * not `^1`), and exact versions valid versions: anything else could never name what the service stores.
 */
export const parseReference = (raw: string): Result.Result<ExtendsRef, InvalidReference> => {
  const invalid = (reason: string) => Result.fail(new InvalidReference({ reference: raw, reason }))
  if (raw.length === 0) return invalid("it must not be empty")
  const slash = raw.indexOf("/")
  const platform = slash === -1 ? raw : raw.slice(0, slash)
  if (platform.length === 0) return invalid("the platform name is missing before '/'")
  // No platform can bear such a name (`platform.ts`), so the reference could never resolve; said here, the refusal
  // names the mistake (`base@^2.0.0`, `base:1.0.0`) instead of looking for a platform that cannot exist.
  const name = validatePlatformName(platform)
  if (Result.isFailure(name)) {
    return invalid(
      slash === -1
        ? `it is no platform name (${name.failure.reason}); a version spec follows a '/', as in base/^1.2.0`
        : `${quote(platform)} before '/' is no platform name (${name.failure.reason})`,
    )
  }
  if (slash === -1) return Result.succeed({ raw, platform, spec: { _tag: "Latest" } })
  const spec = raw.slice(slash + 1)
  if (spec.length === 0) return invalid("the version spec after '/' is empty; write the platform alone for latest")
  if (spec.includes("/")) return invalid("it must be <platform> or <platform>/<spec>, with a single '/'")
  if (spec === "latest") return Result.succeed({ raw, platform, spec: { _tag: "Latest" } })
  const operator = RANGE_OPERATORS.find((candidate) => spec.startsWith(candidate))
  const version = operator === undefined ? spec : spec.slice(operator.length)
  const checked = validateVersion(version)
  if (Result.isFailure(checked)) {
    return invalid(
      operator === undefined
        ? `the spec must be an exact version, latest, ^<version>, ~<version> or >=<version>; ${checked.failure.reason}`
        : `the ${operator} range needs a full version; ${checked.failure.reason}`,
    )
  }
  return Result.succeed({
    raw,
    platform,
    spec: operator === undefined ? { _tag: "Exact", version } : { _tag: "Range", operator, version },
  })
}

/**
 * The references of `content["@extends"]` as written: none when the key is absent, one for a string, each of
 * an array of strings in order. Any other value is invalid content.
 */
export const extendsOf = (content: Schema.JsonObject): Result.Result<ReadonlyArray<string>, InvalidSchemaContent> => {
  if (!Object.hasOwn(content, EXTENDS_KEY)) return Result.succeed([])
  const value = content[EXTENDS_KEY]
  if (Predicate.isString(value)) return Result.succeed([value])
  if (Array.isArray(value) && value.every(Predicate.isString)) {
    return Result.succeed(value as ReadonlyArray<string>)
  }
  return Result.fail(new InvalidSchemaContent({ reason: `${EXTENDS_KEY} must be a string or an array of strings` }))
}

/** The declared dependencies of one schema: the references as written, each parsed. */
export interface Dependencies {
  /** The `dependencies` field of a saved schema. */
  readonly dependencies: ReadonlyArray<string>
  readonly references: ReadonlyArray<ExtendsRef>
}

/** Reads and parses every `@extends` reference of `content`, failing on the first malformed one. */
export const parseDependencies = (
  content: Schema.JsonObject,
): Result.Result<Dependencies, InvalidSchemaContent | InvalidReference> =>
  Result.flatMap(extendsOf(content), (dependencies) =>
    Result.map(Result.all(dependencies.map(parseReference)), (references) => ({ dependencies, references })),
  )
