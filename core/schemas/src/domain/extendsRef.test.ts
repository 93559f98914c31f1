import { versionArbitrary } from "@coffer/test-kit/schemaArbitraries"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { InvalidReference, InvalidSchemaContent } from "./errors.js"
import { type ExtendsRef, extendsOf, parseDependencies, parseReference } from "./extendsRef.js"

const parsed = (raw: string): ExtendsRef => Result.getOrThrow(parseReference(raw))

describe("parseReference", () => {
  it.each([
    ["ios", { platform: "ios", spec: { _tag: "Latest" } }],
    ["ios/latest", { platform: "ios", spec: { _tag: "Latest" } }],
    ["ios/1.2.3", { platform: "ios", spec: { _tag: "Exact", version: "1.2.3" } }],
    ["ios/1.2.3-rc.1+build-7.x", { platform: "ios", spec: { _tag: "Exact", version: "1.2.3-rc.1+build-7.x" } }],
    ["ios/^1.2.3", { platform: "ios", spec: { _tag: "Range", operator: "^", version: "1.2.3" } }],
    ["ios/~1.2.3-beta.1", { platform: "ios", spec: { _tag: "Range", operator: "~", version: "1.2.3-beta.1" } }],
    [
      "web-app.v2/>=2.0.0+meta",
      { platform: "web-app.v2", spec: { _tag: "Range", operator: ">=", version: "2.0.0+meta" } },
    ],
  ])("parses %s", (raw, expected) => {
    expect(parsed(raw)).toEqual({ raw, ...expected })
  })

  it.each([
    ["", "must not be empty"],
    ["/1.0.0", "platform name is missing"],
    ["ios/", "spec after '/' is empty"],
    ["ios/1.0.0/extra", "single '/'"],
    ["ios//1.0.0", "single '/'"],
    ["ios/^1", "range needs a full version"],
    ["ios/~1.2", "range needs a full version"],
    ["ios/>=", "range needs a full version"],
    ["ios/^ 1.0.0", "range needs a full version"],
    ["ios/>1.0.0", "exact version, latest"],
    ["ios/<=1.0.0", "exact version, latest"],
    ["ios/=1.0.0", "exact version, latest"],
    ["ios/v1.0.0", "exact version, latest"],
    ["ios/1.x", "exact version, latest"],
    ["ios/*", "exact version, latest"],
    ["ios/ 1.0.0", "exact version, latest"],
    ["ios/1.0.0 || 2.0.0", "exact version, latest"],
    ["ios/1.0.0 - 2.0.0", "exact version, latest"],
    ["ios/Latest", "exact version, latest"],
    ["base@^2.0.0", "it is no platform name (only letters, digits"],
    ["base:1.0.0/1.0.0", `"base:1.0.0" before '/' is no platform name`],
    ["-ios/1.0.0", "starting with a letter or digit"],
    ["schemas/1.0.0", "the name is reserved"],
    [`${"a".repeat(65)}/1.0.0`, "at most 64 are allowed"],
  ])("rejects %j: %s", (raw, reason) => {
    const result = parseReference(raw)
    expect(Result.isFailure(result)).toBe(true)
    const error = Result.isFailure(result) ? result.failure : undefined
    expect(error).toBeInstanceOf(InvalidReference)
    expect(error?.reference).toBe(raw)
    expect(error?.message).toContain(`Invalid @extends reference ${JSON.stringify(raw)}`)
    expect(error?.message).toContain(reason)
  })

  it("reads every exact, range and latest form of any platform and version", () => {
    const platform = fc
      .stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,7}$/)
      .filter((name) => !["schemas", "auth"].includes(name))
    fc.assert(
      fc.property(platform, versionArbitrary, (name, version) => {
        expect(parsed(`${name}/${version}`).spec).toEqual({ _tag: "Exact", version })
        for (const operator of ["^", "~", ">="] as const) {
          expect(parsed(`${name}/${operator}${version}`).spec).toEqual({ _tag: "Range", operator, version })
        }
        expect(parsed(name)).toEqual({ raw: name, platform: name, spec: { _tag: "Latest" } })
      }),
    )
  })
})

describe("extendsOf", () => {
  it("has no references when the key is absent", () => {
    expect(extendsOf({ a: 1 })).toEqual(Result.succeed([]))
  })

  it("reads a string as one reference and an array in order", () => {
    expect(extendsOf({ "@extends": "ios/1.0.0" })).toEqual(Result.succeed(["ios/1.0.0"]))
    expect(extendsOf({ "@extends": ["b", "a/^1.0.0"] })).toEqual(Result.succeed(["b", "a/^1.0.0"]))
    expect(extendsOf({ "@extends": [] })).toEqual(Result.succeed([]))
  })

  const invalid: ReadonlyArray<Schema.Json> = [null, 1, true, {}, { platform: "ios" }, ["ios", 2], [null], [["ios"]]]
  it.each(invalid)("rejects @extends: %j", (value) => {
    const result = extendsOf({ "@extends": value })
    expect(Result.isFailure(result)).toBe(true)
    const error = Result.isFailure(result) ? result.failure : undefined
    expect(error).toBeInstanceOf(InvalidSchemaContent)
    expect(error?.message).toBe("Invalid schema content: @extends must be a string or an array of strings")
  })
})

describe("parseDependencies", () => {
  it("keeps the references exactly as written next to their parsed form", () => {
    const result = Result.getOrThrow(parseDependencies({ "@extends": ["ios", "web/^2.0.0"], x: 1 }))
    expect(result.dependencies).toEqual(["ios", "web/^2.0.0"])
    expect(result.references.map((reference) => reference.platform)).toEqual(["ios", "web"])
  })

  it("fails on the first malformed reference", () => {
    const result = parseDependencies({ "@extends": ["ios", "web/^2", "/x"] })
    expect(Result.isFailure(result) && result.failure._tag === "InvalidReference" && result.failure.reference).toBe(
      "web/^2",
    )
  })
})
