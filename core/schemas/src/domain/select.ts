/**
 * Version selection: which of a platform's available versions one parsed `@extends` reference picks.
 *
 * Ranges follow semver's defaults (`includePrerelease: false`): a pre-release satisfies a range only when the
 * range's own version is a pre-release of the same MAJOR.MINOR.PATCH, so `^1.0.0` never picks `1.1.0-beta`
 * while `^1.1.0-beta.1` may pick `1.1.0-beta.2`. Among several matches the highest by `compareVersions` wins,
 * which, unlike `semver.maxSatisfying`, does not depend on the order the versions are listed in.
 */
import { quote } from "@coffer/kernel"
import * as Result from "effect/Result"
import semver from "semver"
import { Unresolved } from "./errors.js"
import type { ExtendsRef } from "./extendsRef.js"
import { compareParsed, comparePrecedence, latest, type ParsedVersion, parseVersion } from "./version.js"

/** The semver range text of a `Range` spec, e.g. `^1.2.3`. */
export const rangeOf = (operator: string, version: string): string => `${operator}${version}`

/**
 * Picks the version `reference` selects among `versions`, the platform's available versions; `undefined` means
 * the platform does not exist. An exact version must be listed as written; `latest` follows `latest`.
 */
export const selectVersion = (
  reference: ExtendsRef,
  versions: ReadonlyArray<string> | undefined,
): Result.Result<string, Unresolved> => {
  const unresolved = (reason: string) => Result.fail(new Unresolved({ reference: reference.raw, reason }))
  if (versions === undefined) return unresolved(`platform ${quote(reference.platform)} was not found`)
  const { spec } = reference
  switch (spec._tag) {
    case "Exact":
      return versions.includes(spec.version)
        ? Result.succeed(spec.version)
        : unresolved(`version ${quote(spec.version)} of platform ${quote(reference.platform)} was not found`)
    case "Latest": {
      const selected = latest(versions)
      return selected === undefined
        ? unresolved(
            versions.length === 0
              ? `platform ${quote(reference.platform)} has no versions`
              : `platform ${quote(reference.platform)} has no valid semantic version`,
          )
        : Result.succeed(selected)
    }
    case "Range": {
      // One pass, each version parsed once and tested as parsed: linear in the number of versions.
      const range = new semver.Range(rangeOf(spec.operator, spec.version))
      // Every range here is `>=` its operand (`^` and `~` add an upper bound on MAJOR.MINOR.PATCH), and `semver`
      // tests that bound with pre-release numbers turned into JavaScript numbers, under which two above 2^53 may
      // compare equal: the bound is tested again exactly, so `>=1.0.0-99999999999999999999` never takes
      // `1.0.0-99999999999999999998`.
      const floor = parseVersion(spec.version).semver
      let selected: ParsedVersion | undefined
      for (const text of versions) {
        const version = parseVersion(text)
        if (version.semver === undefined || !range.test(version.semver)) continue
        if (floor !== undefined && comparePrecedence(version.semver, floor) < 0) continue
        if (selected === undefined || compareParsed(version, selected) > 0) selected = version
      }
      return selected === undefined
        ? unresolved(
            `no version of platform ${quote(reference.platform)} matches ${rangeOf(spec.operator, spec.version)}`,
          )
        : Result.succeed(selected.text)
    }
  }
}
