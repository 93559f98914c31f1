import fc from "fast-check"
import { describe, expect, it } from "vitest"
// The service's own rules, by path: the browser code must agree with them string for string.
import {
  compareVersions as serviceCompare,
  latest as serviceLatest,
  validateVersion,
} from "../../../../core/schemas/src/domain/version.js"
import { compareVersions, latestVersion, sortVersions, versionError, versionParts, versionProblem } from "./versions.js"

const serviceMessage = (version: string): string | undefined => {
  const result = validateVersion(version)
  return result._tag === "Failure" ? result.failure.message : undefined
}

const numeric = fc.oneof(
  fc.integer({ min: 0, max: 20 }).map(String),
  fc.constantFrom("00", "01", "9007199254740992", "99999999999999999999", "100000000000000000000"),
)
const identifier = fc.oneof(numeric, fc.constantFrom("alpha", "beta", "rc", "x-1", "0a", "-", "a.b", ""))
/** Strings near the grammar: most valid, many broken in one of the ways the rules name. */
const nearVersion = fc
  .record({
    core: fc.tuple(numeric, numeric, numeric),
    prerelease: fc.option(fc.array(identifier, { minLength: 1, maxLength: 3 })),
    build: fc.option(fc.array(identifier, { minLength: 1, maxLength: 2 })),
    prefix: fc.constantFrom("", "", "", "v", " ", "="),
    suffix: fc.constantFrom("", "", "", " ", "\n", "_", "+"),
  })
  .map(
    ({ core, prerelease, build, prefix, suffix }) =>
      prefix +
      core.join(".") +
      (prerelease === null ? "" : `-${prerelease.join(".")}`) +
      (build === null ? "" : `+${build.join(".")}`) +
      suffix,
  )
const anyString = fc.oneof(nearVersion, fc.string({ maxLength: 12 }), fc.string({ minLength: 120, maxLength: 140 }))

describe("version rules in the browser", () => {
  it("gives the API's message for every string, and accepts exactly what it accepts", () => {
    fc.assert(
      fc.property(anyString, (version) => {
        expect(versionError(version)).toBe(serviceMessage(version))
      }),
      { numRuns: 3000 },
    )
  })

  it("names each rule of seed 000 §2 as the API does", () => {
    expect(versionProblem("")).toBe("it must not be empty")
    expect(versionProblem(`1.0.0+${"a".repeat(124)}`)).toBe("it is 130 characters long, at most 128 are allowed")
    expect(versionProblem(" 1.0.0")).toMatch(/surrounding whitespace is not removed/)
    expect(versionProblem("1.0.0_b")).toMatch(/^only letters, digits/)
    expect(versionProblem("v1.0.0")).toBe("it is not a semantic version: write 1.0.0, without the leading v")
    expect(versionProblem("v1.0")).toMatch(/^it is not a semantic version \(MAJOR/)
    expect(versionProblem("1.0")).toMatch(/^it is not a semantic version/)
    expect(versionProblem("1.0.0-01")).toMatch(/^it is not a semantic version/)
    expect(versionProblem("1.0.0+01")).toBeUndefined()
    expect(versionProblem("1.0.0-rc.1+build.5")).toBeUndefined()
    expect(versionError("1..0")).toBe(
      'Invalid version "1..0": it is not a semantic version (MAJOR.MINOR.PATCH, optionally -prerelease and +build)',
    )
  })

  it("orders versions exactly as the service does", () => {
    for (const [a, b] of [
      ["1.0.0+01", "1.0.0+1"],
      ["1.0.0+99999999999999999999", "1.0.0+100000000000000000000"],
      ["1.0.0-99999999999999999999", "1.0.0-100000000000000000000"],
    ] as const) {
      expect([Math.sign(compareVersions(a, b)), Math.sign(compareVersions(b, a))]).toEqual([
        serviceCompare(a, b),
        serviceCompare(b, a),
      ])
    }
    fc.assert(
      fc.property(anyString, anyString, (a, b) => {
        expect(Math.sign(compareVersions(a, b))).toBe(serviceCompare(a, b))
      }),
      { numRuns: 3000 },
    )
    expect(sortVersions(["1.0.0", "1.0.0+b", "1.0.0-rc.1", "0.9.0", "1.0.0+a", "10.0.0", "2.0.0", "legacy"])).toEqual([
      "legacy",
      "0.9.0",
      "1.0.0-rc.1",
      "1.0.0",
      "1.0.0+a",
      "1.0.0+b",
      "2.0.0",
      "10.0.0",
    ])
  })

  it("selects as `latest` exactly what the service selects", () => {
    fc.assert(
      fc.property(fc.array(anyString, { maxLength: 8 }), (versions) => {
        expect(latestVersion(versions)).toBe(serviceLatest(versions))
      }),
      { numRuns: 2000 },
    )
    // A release wins over a higher pre-release; a platform of pre-releases still has a latest.
    expect(latestVersion(["1.1.0", "2.0.0-rc.1", "1.0.0"])).toBe("1.1.0")
    expect(latestVersion(["2.0.0-rc.1", "2.0.0-beta.3", "junk"])).toBe("2.0.0-rc.1")
    expect(latestVersion(["junk"])).toBeUndefined()
  })

  it("splits a version into its release, pre-release and build parts for display", () => {
    expect(versionParts("1.2.3-rc.1+b.7")).toEqual({ release: "1.2.3", prerelease: "rc.1", build: "b.7" })
    expect(versionParts("1.2.3")).toEqual({ release: "1.2.3", prerelease: undefined, build: undefined })
    expect(versionParts("junk")).toEqual({ release: "junk", prerelease: undefined, build: undefined })
  })
})
