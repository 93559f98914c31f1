/**
 * Platform version strings: the rules for adding one (seed 000 §2 and §8), a total order over them, and what
 * `latest` means. Validation is strict on purpose: `semver` itself trims whitespace and accepts a leading `v`,
 * so a string is accepted only when it is exactly the canonical form semver parses it to.
 */
import * as Result from "effect/Result"
import semver from "semver"
import { InvalidVersion } from "./errors.js"

/** Seed 000 §8: longer strings are rejected before any parsing. */
export const MAX_VERSION_LENGTH = 128

const ALLOWED_CHARACTERS = /^[A-Za-z0-9.+-]+$/

/**
 * A semantic version as semver.org writes its grammar, for whoever checks a version before sending it (the
 * OpenAPI document). `validateVersion` also refuses a major, minor or patch number above JavaScript's safe
 * integers, which this admits, and says which part was wrong.
 */
export const VERSION_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/

/**
 * Checks a version string for adding: valid semantic version (pre-release and build metadata allowed), at most
 * 128 characters, only letters, digits, `.`, `-` and `+`, and never trimmed. Returns the string unchanged.
 */
export const validateVersion = (version: string): Result.Result<string, InvalidVersion> => {
  const reason = problemWith(version)
  return reason === undefined
    ? Result.succeed(version)
    : Result.fail(new InvalidVersion({ version, reason: withHint(version, reason) }))
}

/** Valid strings seen lately: a schema read checks its version on every request, and semver parses it each time. */
const known = new Set<string>()
/** Bounded so that a caller inventing versions cannot grow it; emptied when full (valid strings only enter it). */
const KNOWN_MAX = 10_000

/** True when {@link validateVersion} accepts the string: the only versions ordering, `latest` and ranges consider. */
export const isValidVersion = (version: string): boolean => {
  if (known.has(version)) return true
  if (problemWith(version) !== undefined) return false
  if (known.size >= KNOWN_MAX) known.clear()
  known.add(version)
  return true
}

// Kept separate from `validateVersion` so that sorting and selection do not build an error per comparison.
const problemWith = (version: string): string | undefined => {
  if (version.length === 0) return "it must not be empty"
  if (version.length > MAX_VERSION_LENGTH) {
    return `it is ${version.length} characters long, at most ${MAX_VERSION_LENGTH} are allowed`
  }
  if (!ALLOWED_CHARACTERS.test(version)) {
    return "only letters, digits, '.', '-' and '+' are allowed (surrounding whitespace is not removed)"
  }
  const parsed = semver.parse(version)
  // The canonical text differs for forms semver tolerates but the rules do not, such as "v1.0.0".
  if (parsed === null || canonical(parsed) !== version) return tooLarge(version) ?? NOT_SEMVER
  return undefined
}

const PARTS = ["major", "minor", "patch"] as const

/**
 * For a string semver.org's grammar admits (`VERSION_PATTERN`) that semver refused: the part above JavaScript's
 * safe integers, named, since "not a semantic version" would be untrue of it.
 */
const tooLarge = (version: string): string | undefined => {
  const match = VERSION_PATTERN.exec(version)
  if (match === null) return undefined
  const index = [match[1]!, match[2]!, match[3]!].findIndex((part) => !Number.isSafeInteger(Number(part)))
  return index === -1
    ? undefined
    : `its ${PARTS[index]} number ${match[index + 1]} is above ${Number.MAX_SAFE_INTEGER}, the largest accepted`
}

const NOT_SEMVER = "it is not a semantic version (MAJOR.MINOR.PATCH, optionally -prerelease and +build)"

/** A tag's name ("v1.2.0") is the most common slip: the refusal says what would be taken. */
const withHint = (version: string, reason: string): string =>
  reason === NOT_SEMVER && /^[vV]/.test(version) && problemWith(version.slice(1)) === undefined
    ? `it is not a semantic version: write ${version.slice(1)}, without the leading ${version[0]}`
    : reason

const canonical = (parsed: semver.SemVer): string =>
  parsed.build.length === 0 ? parsed.version : `${parsed.version}+${parsed.build.join(".")}`

/** A version string with its parse, made once so that sorting and selection never parse a string twice. */
export interface ParsedVersion {
  readonly text: string
  /** `undefined` for strings that are not valid versions (legacy records). */
  readonly semver: semver.SemVer | undefined
}

/** Parses once; `semver` is set only for strings {@link validateVersion} accepts. */
export const parseVersion = (text: string): ParsedVersion => ({
  text,
  semver: problemWith(text) === undefined ? new semver.SemVer(text) : undefined,
})

const DIGITS = /^[0-9]+$/

/**
 * Two pre-release identifiers by semver.org §11: numeric ones numerically, below alphanumeric ones, which compare
 * in ASCII order. Numeric identifiers are compared exactly (a valid one has no leading zero, so the longer is
 * larger): `semver` turns them into JavaScript numbers, so two above 2^53 that round alike compared equal and
 * `1.0.0-99999999999999999999` ranked above `1.0.0-100000000000000000000`.
 */
const compareIdentifier = (left: string | number, right: string | number): -1 | 0 | 1 => {
  const a = String(left)
  const b = String(right)
  const aNumeric = DIGITS.test(a)
  const bNumeric = DIGITS.test(b)
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1
  if (aNumeric && a.length !== b.length) return a.length < b.length ? -1 : 1
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Semver precedence (build metadata ignored), exactly: MAJOR.MINOR.PATCH (safe integers, validation sees to it),
 * then the pre-release identifiers one by one, a version without a pre-release above every one with.
 */
export const comparePrecedence = (a: semver.SemVer, b: semver.SemVer): -1 | 0 | 1 => {
  const main = a.compareMain(b)
  if (main !== 0) return main
  const [left, right] = [a.prerelease, b.prerelease]
  if (left.length === 0 || right.length === 0) return left.length === right.length ? 0 : left.length === 0 ? 1 : -1
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const order = compareIdentifier(left[i]!, right[i]!)
    if (order !== 0) return order
  }
  return left.length === right.length ? 0 : left.length < right.length ? -1 : 1
}

/** {@link compareVersions} over parsed versions: no parsing per comparison. */
export const compareParsed = (a: ParsedVersion, b: ParsedVersion): -1 | 0 | 1 => {
  if ((a.semver === undefined) !== (b.semver === undefined)) return a.semver === undefined ? -1 : 1
  if (a.semver !== undefined && b.semver !== undefined) {
    // Precedence first, then build metadata (what `semver.compareBuild(a, b)` does), without re-parsing.
    const bySemver = comparePrecedence(a.semver, b.semver) || a.semver.compareBuild(b.semver)
    if (bySemver !== 0) return bySemver
  }
  return a.text < b.text ? -1 : a.text > b.text ? 1 : 0
}

/**
 * A total, deterministic order for `Array.prototype.sort`. Valid versions follow semver precedence, then build
 * metadata (semver's `compareBuild`), then plain string order, so that "1.0.0+1" and "1.0.0+01" (equal to semver)
 * still have a fixed order and only identical strings compare equal. Strings that are not valid versions (a
 * legacy record, say) sort before every valid one, by string order among themselves. It parses both strings on
 * every call: to sort a list, use {@link sortVersions}.
 */
export const compareVersions = (a: string, b: string): -1 | 0 | 1 => compareParsed(parseVersion(a), parseVersion(b))

/** The versions sorted by {@link compareVersions}, each parsed once (a new array). */
export const sortVersions = (versions: Iterable<string>): Array<string> =>
  Array.from(versions, parseVersion)
    .sort(compareParsed)
    .map((version) => version.text)

/** True for a valid version with a pre-release part, such as "2.0.0-rc.1". */
export const isPrerelease = (version: string): boolean => isValidVersion(version) && semver.prerelease(version) !== null

/**
 * What `latest` selects: the highest release (no pre-release part) when the platform has one, otherwise the
 * highest pre-release, so that a platform whose only versions are betas still has a latest. Strings that are not
 * valid versions are never selected. `undefined` when nothing qualifies. One pass, each version parsed once.
 */
export const latest = (versions: ReadonlyArray<string>): string | undefined => {
  let release: ParsedVersion | undefined
  let prerelease: ParsedVersion | undefined
  for (const text of versions) {
    const version = parseVersion(text)
    if (version.semver === undefined) continue
    if (version.semver.prerelease.length === 0) {
      if (release === undefined || compareParsed(version, release) > 0) release = version
    } else if (prerelease === undefined || compareParsed(version, prerelease) > 0) prerelease = version
  }
  return (release ?? prerelease)?.text
}

/** The greatest of `versions` by {@link compareVersions}; `undefined` for none. One pass, each parsed once. */
export const highest = (versions: ReadonlyArray<string>): string | undefined => {
  let best: ParsedVersion | undefined
  for (const text of versions) {
    const version = parseVersion(text)
    if (best === undefined || compareParsed(version, best) > 0) best = version
  }
  return best?.text
}
