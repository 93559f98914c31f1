/**
 * The bounds of resolution (DESIGN.md "Schemas resolution limits"), so that no request can buy unbounded work
 * with a small body: each `@extends` entry costs a merge of its parent's output, each level of inheritance a
 * resolution step, each version a parse on every selection. Every bound refuses with `ResolutionLimit` (400)
 * and a message naming the limit. The cheap ones (references, duplicates, the length of a version list) are
 * checked on the request itself, before any store call and before the write lock; depth and output size are
 * checked as resolution proceeds, which stops at the bound instead of running on.
 */
import { quote } from "@coffer/kernel"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import { ResolutionLimit } from "./errors.js"

/** `@extends` references in one schema. */
export const MAX_EXTENDS = 32
/** Levels of inheritance below a schema: a chain of 1,000 schemas above it is the most allowed. */
export const MAX_DEPTH = 1_000
/** Bytes of a resolved `output`, as UTF-8 JSON. */
export const MAX_OUTPUT_BYTES = 4 * 1024 * 1024
/** Versions of one platform. */
export const MAX_VERSIONS = 10_000

const count = (value: number) => value.toLocaleString("en-US")
const where = (schema: string | undefined) => (schema === undefined ? "" : ` in ${schema}`)

/** At most {@link MAX_EXTENDS} references, none written twice. */
export const checkReferences = (
  references: ReadonlyArray<string>,
  schema?: string,
): Result.Result<void, ResolutionLimit> => {
  if (references.length > MAX_EXTENDS) {
    return Result.fail(
      new ResolutionLimit({
        limit: "references",
        detail: `Too many @extends references${where(schema)}: ${count(references.length)}, at most ${MAX_EXTENDS} are allowed`,
      }),
    )
  }
  const seen = new Set<string>()
  for (const reference of references) {
    if (seen.has(reference)) {
      return Result.fail(
        new ResolutionLimit({
          limit: "duplicate",
          detail: `@extends lists ${quote(reference)} twice${where(schema)}: each reference may appear once (at most ${MAX_EXTENDS}, none twice)`,
        }),
      )
    }
    seen.add(reference)
  }
  return Result.void
}

export const depthExceeded = (schema: string): ResolutionLimit =>
  new ResolutionLimit({
    limit: "depth",
    detail: `Inheritance too deep: ${schema} extends through more than ${count(MAX_DEPTH)} levels, at most ${count(MAX_DEPTH)} are allowed`,
  })

/** The UTF-8 length of a string, without encoding it. */
const utf8Length = (text: string): number => {
  let bytes = text.length
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x80) continue
    // Two bytes up to U+07FF, three above; a surrogate pair (four bytes) counts 2 + 2 over its two units.
    bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2
  }
  return bytes
}

/** At most {@link MAX_OUTPUT_BYTES} of JSON; the schema is named in the message. */
export const checkOutput = (output: Schema.JsonObject, schema: string): Result.Result<void, ResolutionLimit> => {
  const bytes = utf8Length(JSON.stringify(output))
  return bytes <= MAX_OUTPUT_BYTES
    ? Result.void
    : Result.fail(
        new ResolutionLimit({
          limit: "output",
          detail: `The resolved output of ${schema} is ${count(bytes)} bytes, at most ${count(MAX_OUTPUT_BYTES)} (4 MiB) are allowed`,
        }),
      )
}

/** At most {@link MAX_VERSIONS} versions on one platform once `count` are listed. */
export const checkVersionCount = (platform: string, total: number): Result.Result<void, ResolutionLimit> =>
  total <= MAX_VERSIONS
    ? Result.void
    : Result.fail(
        new ResolutionLimit({
          limit: "versions",
          detail: `Platform ${quote(platform)} would have ${count(total)} versions, at most ${count(MAX_VERSIONS)} are allowed`,
        }),
      )
