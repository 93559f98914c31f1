/**
 * An `@extends` reference as the platform page shows it: a link when it names one exact version (`base/1.2.0`),
 * as written otherwise (`base`, `base/latest`, a range), since which version those select changes with the
 * platform they name. Read as the service reads it (`core/schemas/src/domain/extendsRef.ts`): the platform ends
 * at the first `/`, and a spec is a range by its leading operator, never by searching for `-` or `+`.
 */
import { versionError } from "./versions.js"

export interface ExactReference {
  readonly platform: string
  readonly version: string
}

/** The platform and version an exact reference names; `undefined` for `latest`, a range, or a bad reference. */
export const exactReference = (reference: string): ExactReference | undefined => {
  const slash = reference.indexOf("/")
  if (slash <= 0) return undefined
  const platform = reference.slice(0, slash)
  const version = reference.slice(slash + 1)
  if (version === "latest" || /^(\^|~|>=)/.test(version) || versionError(version) !== undefined) return undefined
  return { platform, version }
}
