import { versionArbitrary } from "@coffer/test-kit/schemaArbitraries"
import * as Result from "effect/Result"
import fc from "fast-check"
import semver from "semver"
import { describe, expect, it } from "vitest"
import { Unresolved } from "./errors.js"
import { parseReference } from "./extendsRef.js"
import { selectVersion } from "./select.js"
import { compareVersions } from "./version.js"

const select = (raw: string, versions: ReadonlyArray<string> | undefined) =>
  selectVersion(Result.getOrThrow(parseReference(raw)), versions)

const unresolvedReason = (raw: string, versions: ReadonlyArray<string> | undefined): string => {
  const result = select(raw, versions)
  if (Result.isSuccess(result)) throw new Error(`${raw} unexpectedly selected ${result.success}`)
  expect(result.failure).toBeInstanceOf(Unresolved)
  expect(result.failure.reference).toBe(raw)
  expect(result.failure.message).toContain(`Unresolved @extends reference ${JSON.stringify(raw)}`)
  return result.failure.reason
}

const versions = ["1.0.0", "1.1.0", "1.2.0-beta.1", "1.2.5", "2.0.0-rc.1", "2.0.0", "3.0.0-alpha"]

describe("selectVersion", () => {
  it("fails on a missing platform, whatever the spec", () => {
    for (const raw of ["ios", "ios/1.0.0", "ios/^1.0.0"]) {
      expect(unresolvedReason(raw, undefined)).toBe('platform "ios" was not found')
    }
  })

  it("selects an exact version only when it is listed as written", () => {
    expect(select("ios/1.1.0", versions)).toEqual(Result.succeed("1.1.0"))
    expect(select("ios/1.0.0+a", ["1.0.0", "1.0.0+a"])).toEqual(Result.succeed("1.0.0+a"))
    expect(unresolvedReason("ios/1.0.0+b", ["1.0.0", "1.0.0+a"])).toBe(
      'version "1.0.0+b" of platform "ios" was not found',
    )
    expect(unresolvedReason("ios/9.9.9", versions)).toBe('version "9.9.9" of platform "ios" was not found')
  })

  it("selects the latest release, bare or spelled out", () => {
    expect(select("ios", versions)).toEqual(Result.succeed("2.0.0"))
    expect(select("ios/latest", versions)).toEqual(Result.succeed("2.0.0"))
    expect(select("ios", ["1.0.0-beta", "1.0.0-rc.1"])).toEqual(Result.succeed("1.0.0-rc.1"))
    expect(unresolvedReason("ios/latest", [])).toBe('platform "ios" has no versions')
    expect(unresolvedReason("ios", ["legacy"])).toBe('platform "ios" has no valid semantic version')
  })

  it.each([
    ["ios/^1.0.0", "1.2.5"],
    ["ios/~1.1.0", "1.1.0"],
    ["ios/>=1.1.0", "2.0.0"],
    ["ios/^1.2.0-beta.0", "1.2.5"],
    ["ios/~1.2.0-beta.0", "1.2.5"],
    ["ios/^2.0.0-rc.0", "2.0.0"],
    ["ios/>=3.0.0-alpha", "3.0.0-alpha"],
    ["ios/^1.0.0+meta", "1.2.5"],
  ])("selects the highest match of %s: %s", (raw, expected) => {
    expect(select(raw, versions)).toEqual(Result.succeed(expected))
  })

  it("leaves pre-releases out of ranges unless the range names one of the same version", () => {
    expect(select("ios/^1.2.0", ["1.2.0", "1.3.0-beta.1"])).toEqual(Result.succeed("1.2.0"))
    expect(select("ios/^1.3.0-beta.0", ["1.2.0", "1.3.0-beta.1"])).toEqual(Result.succeed("1.3.0-beta.1"))
    expect(unresolvedReason("ios/>=3.0.0", versions)).toBe('no version of platform "ios" matches >=3.0.0')
  })

  it("fails when a range matches nothing", () => {
    expect(unresolvedReason("ios/^4.0.0", versions)).toBe('no version of platform "ios" matches ^4.0.0')
    expect(unresolvedReason("ios/~1.3.0", versions)).toBe('no version of platform "ios" matches ~1.3.0')
    expect(unresolvedReason("ios/^1.0.0", [])).toBe('no version of platform "ios" matches ^1.0.0')
  })

  it("ignores listed strings that are not valid versions", () => {
    expect(select("ios/>=0.0.0", ["garbage", "v9.0.0", "0.1.0"])).toEqual(Result.succeed("0.1.0"))
    expect(select("ios", ["garbage", "0.0.1-x"])).toEqual(Result.succeed("0.0.1-x"))
  })

  it("tests a range's lower bound exactly, however large its pre-release numbers", () => {
    const huge = ["1.0.0-99999999999999999998", "1.0.0-99999999999999999999", "1.0.0-100000000000000000000"]
    expect(select("ios/>=1.0.0-99999999999999999999", huge)).toEqual(Result.succeed("1.0.0-100000000000000000000"))
    expect(select("ios/^1.0.0-99999999999999999999", [...huge].reverse())).toEqual(
      Result.succeed("1.0.0-100000000000000000000"),
    )
    expect(unresolvedReason("ios/~1.0.0-100000000000000000000", huge.slice(0, 2))).toBe(
      'no version of platform "ios" matches ~1.0.0-100000000000000000000',
    )
    expect(select("ios", huge)).toEqual(Result.succeed("1.0.0-100000000000000000000"))
  })

  it("breaks ties between build variants the same way whatever the list order", () => {
    expect(select("ios/^1.0.0", ["1.0.0+b", "1.0.0+a"])).toEqual(Result.succeed("1.0.0+b"))
    expect(select("ios/^1.0.0", ["1.0.0+a", "1.0.0+b"])).toEqual(Result.succeed("1.0.0+b"))
  })

  it("selects, for any range, the greatest satisfying version, or fails when none satisfies", () => {
    const operator = fc.constantFrom("^", "~", ">=")
    fc.assert(
      fc.property(operator, versionArbitrary, fc.array(versionArbitrary, { maxLength: 8 }), (op, base, available) => {
        const range = `${op}${base}`
        const matching = available.filter((version) => semver.satisfies(version, range))
        const result = select(`ios/${range}`, available)
        expect(Result.getOrUndefined(result)).toBe([...matching].sort(compareVersions).at(-1))
        expect(Result.getOrUndefined(select(`ios/${range}`, [...available].reverse()))).toBe(
          Result.getOrUndefined(result),
        )
      }),
    )
  })
})
