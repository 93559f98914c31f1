/**
 * An audit entry's detail as the log shows it. The service records it as fields made for reading back
 * (`{ versions: [...], kind: "web" }`, `{ omittedFrom: "versions list" }`, `{ platforms: null }`); the page reads
 * them out as a sentence fragment ("3 versions: 1.0.0, 1.1.0, 2.0.0; kind web", "left out of the versions list",
 * "for all platforms"), as the Secrets log reads its targets (`../secrets/auditTarget.ts`). Each action has its
 * form in one table, so an action the service adds must be given one before the dashboard builds. An action the
 * page does not know (a newer service's) shows its detail as recorded.
 */
import type { AuditEntry } from "../api/schemas.js"

type Detail = NonNullable<AuditEntry["detail"]>

const strings = (value: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined

/** `n` things, or the one thing, in words: `count(2, "version")` is "2 versions". */
const count = (n: number, what: string) => (n === 1 ? `1 ${what}` : `${n} ${what}s`)

/** Names counted then listed: "3 versions: 1.0.0, 1.1.0, 2.0.0", "no versions". */
const listed = (names: ReadonlyArray<string>, what: string) =>
  names.length === 0 ? `no ${what}s` : `${count(names.length, what)}: ${names.join(", ")}`

/** A kind as the service records it; a platform recorded without one reads as custom, as the list shows it. */
const kindOf = (value: unknown) => (typeof value === "string" ? value : "custom")

/** The fields as recorded, for an action the page does not know: `key: value` pairs. */
const recorded = (detail: Detail) =>
  Object.entries(detail)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join("; ")

/** The fragments that say something, joined; an empty detail says nothing. */
const fragments = (...parts: ReadonlyArray<string | undefined>) =>
  parts.filter((part): part is string => part !== undefined && part !== "").join("; ")

/**
 * Each action's form (core/schemas `usecases/platforms.ts` and `usecases/tokens.ts` record them). A token's name
 * is not repeated: it is the entry's target already.
 */
const FORMS: Readonly<Record<AuditEntry["action"], (detail: Detail) => string>> = {
  "platform.delete": (detail) => {
    const versions = strings(detail.versions)
    const tokens = strings(detail.tokens)
    return fragments(
      versions === undefined ? undefined : listed(versions, "version"),
      detail.kind === undefined ? undefined : `kind ${kindOf(detail.kind)}`,
      tokens === undefined || tokens.length === 0
        ? undefined
        : `taken out of ${tokens.length === 1 ? "a token’s" : `${tokens.length} tokens’`} platforms`,
    )
  },
  "platform.kind": (detail) => `from ${kindOf(detail.from)} to ${kindOf(detail.to)}`,
  // Deleted through the API's version list (`PUT /api/{platform}`) rather than one at a time.
  "version.delete": (detail) =>
    detail.omittedFrom === "versions list" ? "left out of the versions list" : recorded(detail),
  "token.create": (detail) => {
    if (detail.platforms === null) return "for all platforms"
    const platforms = strings(detail.platforms)
    return platforms === undefined ? "" : `for ${listed(platforms, "platform")}`
  },
  "token.revoke": () => "",
}

export const auditDetail = (entry: Pick<AuditEntry, "action" | "detail">): string =>
  entry.detail === undefined
    ? ""
    : Object.hasOwn(FORMS, entry.action)
      ? FORMS[entry.action](entry.detail)
      : recorded(entry.detail)
