import { quote } from "@coffer/kernel"
import { versionArbitrary } from "@coffer/test-kit/schemaArbitraries"
import * as Result from "effect/Result"
import fc from "fast-check"
import semver from "semver"
import { describe, expect, it } from "vitest"
import { InvalidVersion } from "./errors.js"
import {
  compareVersions,
  isPrerelease,
  isValidVersion,
  latest,
  MAX_VERSION_LENGTH,
  VERSION_PATTERN,
  validateVersion,
} from "./version.js"

const failureOf = (version: string): InvalidVersion => {
  const result = validateVersion(version)
  if (Result.isSuccess(result)) throw new Error(`expected ${JSON.stringify(version)} to be rejected`)
  return result.failure
}

describe("validateVersion", () => {
  it.each([
    "0.0.0",
    "1.2.3",
    "10.20.30",
    "1.2.3-rc.1",
    "1.2.3-0.beta-1.x--y",
    "1.2.3+build.5",
    "1.2.3+001",
    "1.2.3-rc.1+build.5",
    `1.0.0-${"a".repeat(MAX_VERSION_LENGTH - 6)}`,
  ])("accepts %s unchanged", (version) => {
    expect(validateVersion(version)).toEqual(Result.succeed(version))
  })

  it.each([
    ["", "must not be empty"],
    [" 1.0.0", "whitespace is not removed"],
    ["1.0.0 ", "whitespace is not removed"],
    ["\t1.0.0\n", "whitespace is not removed"],
    ["1.0.0_1", "only letters, digits"],
    ["1.0.0/x", "only letters, digits"],
    ["１.0.0", "only letters, digits"],
    ["v1.0.0", "not a semantic version: write 1.0.0, without the leading v"],
    ["V2.1.0-rc.1", "write 2.1.0-rc.1, without the leading V"],
    ["v1.0", "not a semantic version (MAJOR.MINOR.PATCH"],
    ["1.0", "not a semantic version"],
    ["1", "not a semantic version"],
    ["01.0.0", "not a semantic version"],
    ["1.0.0-01", "not a semantic version"],
    ["1.0.0+", "not a semantic version"],
    ["1.0.0-", "not a semantic version"],
    ["1.0.0..1", "not a semantic version"],
    ["latest", "not a semantic version"],
    ["99999999999999999.0.0", "its major number 99999999999999999 is above 9007199254740991, the largest accepted"],
    ["9007199254740992.0.0", "its major number 9007199254740992 is above"],
    ["1.9007199254740992.0", "its minor number 9007199254740992 is above"],
    ["1.0.99999999999999999999-rc.1+b", "its patch number 99999999999999999999 is above"],
    ["01.99999999999999999999.0", "not a semantic version (MAJOR.MINOR.PATCH"],
    [`1.0.0-${"a".repeat(MAX_VERSION_LENGTH - 5)}`, "at most 128"],
  ])("rejects %j: %s", (version, reason) => {
    const error = failureOf(version)
    expect(error).toBeInstanceOf(InvalidVersion)
    expect(error._tag).toBe("InvalidVersion")
    expect(error.version).toBe(version)
    expect(error.message).toContain(reason)
    expect(error.message).toContain(`Invalid version ${quote(version)}`)
  })

  it("accepts every generated version and nothing semver would have to trim or rewrite", () => {
    fc.assert(
      fc.property(
        versionArbitrary,
        fc.constantFrom(" ", "v", "=", "\n"),
        fc.constantFrom(" ", "\t", "="),
        (version, prefix, suffix) => {
          expect(isValidVersion(version)).toBe(true)
          expect(isValidVersion(prefix + version)).toBe(false)
          expect(isValidVersion(version + suffix)).toBe(false)
        },
      ),
    )
  })
})

describe("VERSION_PATTERN (what the OpenAPI document states)", () => {
  it("admits exactly the versions validateVersion takes, up to 128 characters", () => {
    const agrees = (version: string) => {
      expect(VERSION_PATTERN.test(version) && version.length <= MAX_VERSION_LENGTH, JSON.stringify(version)).toBe(
        isValidVersion(version),
      )
    }
    fc.assert(fc.property(versionArbitrary, agrees))
    // Short strings of the characters versions are made of: no number part can pass the safe integers.
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(..."0123a.-+ v"), maxLength: 12 }), agrees), {
      numRuns: 5000,
    })
    for (const version of ["1.0.0", "01.0.0", "1.0", "1.0.0-", "1.0.0-01", "1.0.0-0a.1+b.c", "1.0.0+", "v1.0.0"])
      agrees(version)
    // The one difference, said in VERSION_PATTERN's comment: a number semver cannot hold exactly.
    expect(VERSION_PATTERN.test("99999999999999999999.0.0")).toBe(true)
    expect(isValidVersion("99999999999999999999.0.0")).toBe(false)
  })
})

describe("compareVersions", () => {
  it("orders by precedence, then build metadata, with invalid strings first", () => {
    const versions = ["2.0.0", "1.0.0-rc.1", "1.0.0+b", "10.0.0", "1.0.0", "1.10.0", "legacy", "1.0.0+a", "1.2.0"]
    expect([...versions].sort(compareVersions)).toEqual([
      "legacy",
      "1.0.0-rc.1",
      "1.0.0",
      "1.0.0+a",
      "1.0.0+b",
      "1.2.0",
      "1.10.0",
      "2.0.0",
      "10.0.0",
    ])
  })

  it("compares numeric pre-release identifiers exactly, however large (semver.org §11)", () => {
    // semver compares them as JavaScript numbers: these two round to the same one.
    expect(semver.compare("1.0.0-99999999999999999999", "1.0.0-100000000000000000000")).toBe(0)
    expect(compareVersions("1.0.0-99999999999999999999", "1.0.0-100000000000000000000")).toBe(-1)
    expect(compareVersions("1.0.0-100000000000000000000", "1.0.0-99999999999999999999")).toBe(1)
    expect(compareVersions("1.0.0-x.99999999999999999999", "1.0.0-x.9007199254740993")).toBe(1)
    expect(compareVersions("1.0.0-99999999999999999999", "1.0.0-a")).toBe(-1)
    expect(latest(["1.0.0-100000000000000000000", "1.0.0-99999999999999999999"])).toBe("1.0.0-100000000000000000000")
    // Elsewhere it agrees with semver's precedence.
    fc.assert(
      fc.property(versionArbitrary, versionArbitrary, (a, b) => {
        const bySemver = semver.compareBuild(a, b)
        if (bySemver !== 0) expect(compareVersions(a, b)).toBe(bySemver)
      }),
    )
  })

  it("keeps versions semver finds equal apart", () => {
    expect(semver.compareBuild("1.0.0+1", "1.0.0+01")).toBe(0)
    expect(compareVersions("1.0.0+1", "1.0.0+01")).toBe(1)
    expect(compareVersions("1.0.0+01", "1.0.0+1")).toBe(-1)
  })

  it("is a total order: antisymmetric, transitive, and zero only for identical strings", () => {
    const anyVersion = fc.oneof(versionArbitrary, fc.constantFrom("legacy", "v1.0.0", ""))
    fc.assert(
      fc.property(anyVersion, anyVersion, anyVersion, (a, b, c) => {
        expect(compareVersions(a, b)).toBe(-compareVersions(b, a) || 0)
        expect(compareVersions(a, b) === 0).toBe(a === b)
        if (compareVersions(a, b) <= 0 && compareVersions(b, c) <= 0)
          expect(compareVersions(a, c)).toBeLessThanOrEqual(0)
      }),
    )
  })

  it("agrees with semver precedence whenever semver tells the versions apart", () => {
    fc.assert(
      fc.property(versionArbitrary, versionArbitrary, (a, b) => {
        const precedence = semver.compare(a, b)
        if (precedence !== 0) expect(compareVersions(a, b)).toBe(precedence)
      }),
    )
  })
})

describe("latest", () => {
  it("prefers the highest release over any pre-release", () => {
    expect(latest(["1.0.0", "2.0.0-rc.1", "1.5.0"])).toBe("1.5.0")
  })

  it("falls back to the highest pre-release when there is no release", () => {
    expect(latest(["2.0.0-beta.2", "2.0.0-rc.1", "1.0.0-alpha"])).toBe("2.0.0-rc.1")
  })

  it("ignores strings that are not valid versions", () => {
    expect(latest(["legacy", "zzz"])).toBeUndefined()
    expect(latest(["zzz", "0.1.0"])).toBe("0.1.0")
  })

  it("has nothing to select among no versions", () => {
    expect(latest([])).toBeUndefined()
  })

  it("breaks build-metadata ties the same way whatever the list order", () => {
    expect(latest(["1.0.0+b", "1.0.0+a"])).toBe("1.0.0+b")
    expect(latest(["1.0.0+a", "1.0.0+b"])).toBe("1.0.0+b")
  })

  it("is the maximum of the releases, or of all versions when none is a release, independent of order", () => {
    fc.assert(
      fc.property(fc.array(versionArbitrary, { maxLength: 8 }), (versions) => {
        const releases = versions.filter((version) => !isPrerelease(version))
        const pool = releases.length > 0 ? releases : versions
        const expected = [...pool].sort(compareVersions).at(-1)
        expect(latest(versions)).toBe(expected)
        expect(latest([...versions].reverse())).toBe(expected)
      }),
    )
  })
})

describe("isValidVersion", () => {
  it("answers as validateVersion does, however often a string is asked about and past its memory's bound", () => {
    const strings = ["1.0.0", "v1.0.0", "1.0", " 1.0.0", "1.0.0-rc.1+b.2", "01.0.0"]
    const expected = strings.map((text) => Result.isSuccess(validateVersion(text)))
    expect(expected).toEqual([true, false, false, false, true, false])
    for (let round = 0; round < 2; round++) expect(strings.map(isValidVersion)).toEqual(expected)
    // More valid strings than it remembers: the memory empties and answers stay the same.
    for (let i = 0; i < 10_050; i++) expect(isValidVersion(`${i}.0.0`)).toBe(true)
    expect(strings.map(isValidVersion)).toEqual(expected)
  })
})
