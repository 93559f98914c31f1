/**
 * Version strings in the browser: the rules for adding one (seed 000 §2 rules 1-4), checked as the person types
 * with the very sentences the API answers (`core/schemas/src/domain/version.ts`; `versions.test.ts` checks both
 * agree on generated strings), and the order the service lists versions in. The `semver` package is not shipped
 * to the browser: the grammar below is semver's strict one, and a string is accepted only as its own canonical
 * form, exactly as the service decides.
 */

export const MAX_VERSION_LENGTH = 128

const ALLOWED_CHARACTERS = /^[A-Za-z0-9.+-]+$/
const NUMERIC = "0|[1-9]\\d*"
const PRERELEASE_ID = `(?:\\d*[a-zA-Z-][a-zA-Z0-9-]*|${NUMERIC})`
const BUILD_ID = "[a-zA-Z0-9-]+"
const GRAMMAR = new RegExp(
  `^(${NUMERIC})\\.(${NUMERIC})\\.(${NUMERIC})` +
    `(?:-(${PRERELEASE_ID}(?:\\.${PRERELEASE_ID})*))?` +
    `(?:\\+(${BUILD_ID}(?:\\.${BUILD_ID})*))?$`,
)

export interface ParsedVersion {
  readonly text: string
  readonly major: number
  readonly minor: number
  readonly patch: number
  /** Pre-release identifiers (`rc`, `1` of `-rc.1`); empty for a release. */
  readonly prerelease: ReadonlyArray<string>
  /** Build metadata identifiers (`b`, `7` of `+b.7`); empty when none. */
  readonly build: ReadonlyArray<string>
}

const parseCore = (version: string): ParsedVersion | undefined => {
  const match = GRAMMAR.exec(version)
  if (match === null) return undefined
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (major > Number.MAX_SAFE_INTEGER || minor > Number.MAX_SAFE_INTEGER || patch > Number.MAX_SAFE_INTEGER) {
    return undefined
  }
  return {
    text: version,
    major,
    minor,
    patch,
    prerelease: match[4] === undefined ? [] : match[4].split("."),
    build: match[5] === undefined ? [] : match[5].split("."),
  }
}

const PARTS = ["major", "minor", "patch"] as const

/** For a string of the grammar: the part above JavaScript's safe integers, named as the service names it. */
const largePart = (version: string): string | undefined => {
  const match = GRAMMAR.exec(version)
  if (match === null) return undefined
  const index = [match[1], match[2], match[3]].findIndex((part) => !Number.isSafeInteger(Number(part)))
  return index === -1
    ? undefined
    : `its ${PARTS[index]} number ${match[index + 1]} is above ${Number.MAX_SAFE_INTEGER}, the largest accepted`
}

/** Why the service would refuse to add `version`, phrased as it phrases it; `undefined` when it is acceptable. */
export const versionProblem = (version: string): string | undefined => {
  if (version.length === 0) return "it must not be empty"
  if (version.length > MAX_VERSION_LENGTH) {
    return `it is ${version.length} characters long, at most ${MAX_VERSION_LENGTH} are allowed`
  }
  if (!ALLOWED_CHARACTERS.test(version)) {
    return "only letters, digits, '.', '-' and '+' are allowed (surrounding whitespace is not removed)"
  }
  if (parseCore(version) === undefined) {
    const tooLarge = largePart(version)
    if (tooLarge !== undefined) return tooLarge
    // A tag's name ("v1.2.0") is the most common slip: say what would be taken.
    return /^[vV]/.test(version) && versionProblem(version.slice(1)) === undefined
      ? `it is not a semantic version: write ${version.slice(1)}, without the leading ${version[0]}`
      : "it is not a semantic version (MAJOR.MINOR.PATCH, optionally -prerelease and +build)"
  }
  return undefined
}

/** The API's quoting of a value in a message (`@coffer/kernel`'s `quote`): JSON, cut after 80 characters. */
export const quote = (value: string): string => {
  if (value.length <= 80) return JSON.stringify(value)
  // Never between the two halves of an emoji.
  const high = value.charCodeAt(79)
  const end = high >= 0xd800 && high <= 0xdbff ? 79 : 80
  return `${JSON.stringify(value.slice(0, end))}… (${value.length} characters)`
}

/** The API's 400 message for `version` (`Invalid version "…": …`), or `undefined` when it is acceptable. */
export const versionError = (version: string): string | undefined => {
  const problem = versionProblem(version)
  return problem === undefined ? undefined : `Invalid version ${quote(version)}: ${problem}`
}

/** The parse of an acceptable version; `undefined` for anything the rules refuse. */
export const parseVersion = (version: string): ParsedVersion | undefined =>
  versionProblem(version) === undefined ? parseCore(version) : undefined

const NUMBER = /^[0-9]+$/

/**
 * The service's identifier order: numbers before words, words by code unit, numbers numerically. Pre-release numbers
 * exactly, however large (they have no leading zeros, so the longer is larger; `core/schemas` `comparePrecedence`);
 * build metadata's as `semver` compares them, as JavaScript numbers.
 */
const compareIdentifiers = (a: string, b: string, exact: boolean): number => {
  const aNumber = NUMBER.test(a)
  const bNumber = NUMBER.test(b)
  if (aNumber && bNumber && !exact) return Math.sign(Number(a) - Number(b))
  if (aNumber && bNumber && a.length !== b.length) return a.length < b.length ? -1 : 1
  if (aNumber !== bNumber) return aNumber ? -1 : 1
  return a === b ? 0 : a < b ? -1 : 1
}

const compareLists = (a: ReadonlyArray<string>, b: ReadonlyArray<string>, exact: boolean): number => {
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    if (index >= a.length) return -1
    if (index >= b.length) return 1
    const order = compareIdentifiers(a[index]!, b[index]!, exact)
    if (order !== 0) return order
  }
  return 0
}

const compareParsed = (a: ParsedVersion, b: ParsedVersion): number => {
  const core = Math.sign(a.major - b.major) || Math.sign(a.minor - b.minor) || Math.sign(a.patch - b.patch)
  if (core !== 0) return core
  // A release is above its pre-releases.
  const aRelease = a.prerelease.length === 0
  const bRelease = b.prerelease.length === 0
  if (aRelease !== bRelease) return aRelease ? 1 : -1
  const pre = aRelease ? 0 : compareLists(a.prerelease, b.prerelease, true)
  if (pre !== 0) return pre
  // Then build metadata, as semver's compareBuild: none first.
  return compareLists(a.build, b.build, false)
}

/**
 * The service's total order (`compareVersions` in the core): semver precedence, then build metadata, then plain
 * string order; strings that are not acceptable versions (legacy records) first.
 */
export const compareVersions = (a: string, b: string): number => compareWith(a, parseVersion(a), b, parseVersion(b))

const compareWith = (a: string, pa: ParsedVersion | undefined, b: string, pb: ParsedVersion | undefined): number => {
  if ((pa === undefined) !== (pb === undefined)) return pa === undefined ? -1 : 1
  const order = pa !== undefined && pb !== undefined ? compareParsed(pa, pb) : 0
  if (order !== 0) return order
  return a === b ? 0 : a < b ? -1 : 1
}

/** `versions` in the service's order, each parsed once (a new array). */
export const sortVersions = (versions: Iterable<string>): Array<string> =>
  Array.from(versions, (text) => ({ text, parsed: parseVersion(text) }))
    .sort((a, b) => compareWith(a.text, a.parsed, b.text, b.parsed))
    .map((entry) => entry.text)

/**
 * What `latest` selects (`latest` in the core): the highest release, or the highest pre-release when the platform
 * has no release; strings the rules refuse are never selected. `undefined` when nothing qualifies.
 */
export const latestVersion = (versions: Iterable<string>): string | undefined => {
  let release: ParsedVersion | undefined
  let prerelease: ParsedVersion | undefined
  for (const text of versions) {
    const parsed = parseVersion(text)
    if (parsed === undefined) continue
    if (parsed.prerelease.length === 0) {
      if (release === undefined || compareWith(text, parsed, release.text, release) > 0) release = parsed
    } else if (prerelease === undefined || compareWith(text, parsed, prerelease.text, prerelease) > 0) {
      prerelease = parsed
    }
  }
  return (release ?? prerelease)?.text
}

/** How a version reads in a list: its release part, and its pre-release and build parts when it has them. */
export interface VersionParts {
  readonly release: string
  readonly prerelease: string | undefined
  readonly build: string | undefined
}

export const versionParts = (version: string): VersionParts => {
  const parsed = parseVersion(version)
  if (parsed === undefined) return { release: version, prerelease: undefined, build: undefined }
  return {
    release: `${parsed.major}.${parsed.minor}.${parsed.patch}`,
    prerelease: parsed.prerelease.length === 0 ? undefined : parsed.prerelease.join("."),
    build: parsed.build.length === 0 ? undefined : parsed.build.join("."),
  }
}
