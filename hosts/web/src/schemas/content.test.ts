import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MAX_BODY_BYTES as SERVICE_MAX_BODY_BYTES } from "../../../../core/http/src/middleware/bodyLimit.js"
import {
  nestingExceeds,
  MAX_JSON_DEPTH as SERVICE_MAX_JSON_DEPTH,
} from "../../../../core/http/src/middleware/jsonBody.js"
// The service's own checks, by path: the editor must say what a save would answer.
import { validateContent } from "../../../../core/schemas/src/domain/content.js"
import { extendsOf, parseReference } from "../../../../core/schemas/src/domain/extendsRef.js"
import { checkReferences } from "../../../../core/schemas/src/domain/limits.js"
import { checkContent, MAX_BODY_BYTES, MAX_JSON_DEPTH, referenceError } from "./content.js"

/** What the service answers for this content before it looks anything up, or `undefined` when it would go on. */
/** The message of a failed `Result` of the core (its `_tag`, so that this folder need not import `effect`). */
const failed = (result: { readonly _tag: string }): string | undefined =>
  result._tag === "Failure" ? (result as unknown as { failure: { message: string } }).failure.message : undefined

const serviceRefusal = (value: unknown): string | undefined => {
  const content = validateContent(value)
  if (content._tag === "Failure") return failed(content)
  const references = extendsOf(content.success)
  if (references._tag === "Failure") return failed(references)
  const bounded = checkReferences(references.success)
  if (bounded._tag === "Failure") return failed(bounded)
  for (const reference of references.success) {
    const message = failed(parseReference(reference))
    if (message !== undefined) return message
  }
  return undefined
}

const reference = fc.oneof(
  fc.constantFrom("ios", "ios/latest", "ios/1.0.0", "ios/^1.2.0", "ios/~1.2.0-rc.1", "ios/>=2.0.0+b", ""),
  // Past 80 characters, where the API quotes a value cut short.
  fc.constantFrom(`ios/1.0.0-${"a".repeat(90)}`, `${"b".repeat(100)}/1.0.0`, "x".repeat(120)),
  fc.constantFrom("/1.0.0", "ios/", "ios/1/2", "ios/^1", "ios/> =1.0.0", "ios/ 1.0.0", "ios/v1.0.0", "ios/>1.0.0"),
  fc
    .tuple(fc.constantFrom("ios", "web", ""), fc.constantFrom("", "/", "/^", "/~", "/>="), fc.string({ maxLength: 8 }))
    .map((parts) => parts.join("")),
)

describe("checking content in the editor", () => {
  it("refuses exactly what the service refuses before resolving, with its message", () => {
    const extendsValue = fc.oneof(
      reference,
      fc.array(reference, { maxLength: 4 }),
      fc.array(fc.constantFrom("a", "b", "c"), { minLength: 2, maxLength: 4 }),
      fc.constantFrom(null, 1, {}, ["a", 1]),
      fc.constant(Array.from({ length: 33 }, (_, index) => `p${index}`)),
    )
    fc.assert(
      fc.property(extendsValue, fc.boolean(), (value, withOther) => {
        const content = { ...(withOther ? { a: 1 } : {}), "@extends": value }
        const checked = checkContent(JSON.stringify(content))
        expect(checked.ok ? undefined : checked.message).toBe(serviceRefusal(content))
      }),
      { numRuns: 2000 },
    )
  })

  it("refuses what is not a JSON object, saying where the JSON breaks", () => {
    for (const text of ["[]", "null", '"x"', "3"]) {
      const checked = checkContent(text)
      expect(checked.ok ? undefined : checked.message).toBe(serviceRefusal(JSON.parse(text)))
    }
    const broken = checkContent('{\n  "a": 1,\n  "b": }')
    expect(broken).toMatchObject({ ok: false, line: 3, column: expect.any(Number) })
    expect(broken.ok ? "" : broken.message).toMatch(/^Not valid JSON at line 3, column \d+: /)
    expect(checkContent('{"@extends": ["ios", "web/^1.0.0"], "a": {}}')).toEqual({
      ok: true,
      content: { "@extends": ["ios", "web/^1.0.0"], a: {} },
      references: ["ios", "web/^1.0.0"],
    })
  })

  it("refuses content whose save would be too deep or too large, as the service's body checks would", () => {
    expect([MAX_JSON_DEPTH, MAX_BODY_BYTES]).toEqual([SERVICE_MAX_JSON_DEPTH, SERVICE_MAX_BODY_BYTES])
    const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`
    for (const levels of [98, 99, 100, 101]) {
      const text = nested(levels)
      const body = JSON.stringify({ content: JSON.parse(text) })
      const checked = checkContent(text)
      // The service measures the body it receives: the content one level below `{ "content": … }`.
      expect(checked.ok).toBe(!nestingExceeds(body, SERVICE_MAX_JSON_DEPTH))
      if (!checked.ok) expect(checked.message).toBe(`JSON is nested deeper than ${SERVICE_MAX_JSON_DEPTH} levels`)
    }
    expect(checkContent(JSON.stringify({ big: "x".repeat(MAX_BODY_BYTES - 30) })).ok).toBe(true)
    const tooBig = checkContent(JSON.stringify({ big: "é".repeat(MAX_BODY_BYTES / 2) }))
    expect(tooBig.ok ? "" : tooBig.message).toMatch(/^Request body is larger than 1 MiB \(1,048,5\d\d bytes to send\)$/)
  })

  it("refuses what a save would change or drop: a key given twice, an integer beyond 2^53", () => {
    expect(checkContent('{\n  "a": 1,\n  "a": 2\n}')).toEqual({
      ok: false,
      message: "The content gives a twice in one object: write each key once",
    })
    expect(checkContent('{ "big": 12345678901234567890 }')).toEqual({
      ok: false,
      message:
        "The content's big holds 12345678901234567890, an integer JSON numbers do not keep exactly (beyond ±9007199254740991): write it as a string",
    })
    expect(checkContent('{ "id": 9007199254740991, "n": 1e300 }').ok).toBe(true)
  })

  it("explains a malformed reference as the API does", () => {
    expect(referenceError("ios/^1")).toBe(
      'Invalid @extends reference "ios/^1": the ^ range needs a full version; it is not a semantic version (MAJOR.MINOR.PATCH, optionally -prerelease and +build)',
    )
    expect(referenceError("ios/latest")).toBeUndefined()
    // What looks like a version in the platform's place is named, rather than "Valid" until the save fails.
    expect(referenceError("base@^2.0.0")).toBe(
      "Invalid @extends reference \"base@^2.0.0\": it is no platform name (only letters, digits, '.', '_' and '-' are allowed, starting with a letter or digit); a version spec follows a '/', as in base/^1.2.0",
    )
  })
})
