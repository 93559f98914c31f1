/**
 * Copying secrets from one environment into another, as the compare page offers: a key a new environment lacks,
 * or the value one environment has and the other should. The source's value is read (and so audited) unless the
 * person revealed it already, then written as the target's next version only on top of the version the page
 * showed for the target (0: only as a new key). A change made there since the page read it is refused with the
 * service's 409, never replaced unseen; a value replaced knowingly stays in the target's history.
 */
import { readSecret, setSecret } from "../api/secrets.js"

export interface SecretCopy {
  readonly key: string
  readonly from: string
  readonly to: string
  /** The target's version as the page showed it; 0 where the target lacks the key. */
  readonly expectedVersion: number
  /** The source's value when the page holds it already (revealed), so that it is not read a second time. */
  readonly value?: string | undefined
}

/** Copies one secret; answers the value copied. */
export const copySecret = async (slug: string, copy: SecretCopy): Promise<string> => {
  const value = copy.value ?? (await readSecret(slug, copy.from, copy.key)).value
  await setSecret(slug, copy.to, copy.key, value, copy.expectedVersion)
  return value
}

export interface CopyOutcome {
  readonly copied: ReadonlyArray<string>
  readonly failed: ReadonlyArray<{ readonly key: string; readonly error: unknown }>
}

/** At most this many copies in flight: a few at once, not a burst the size of the environment. */
const IN_FLIGHT = 4

/** Copies each of `copies`, a few at a time; one that fails leaves the others to land. */
export const copySecrets = async (slug: string, copies: ReadonlyArray<SecretCopy>): Promise<CopyOutcome> => {
  const copied: Array<string> = []
  const failed: Array<{ key: string; error: unknown }> = []
  let next = 0
  const worker = async () => {
    while (next < copies.length) {
      const copy = copies[next++]!
      try {
        await copySecret(slug, copy)
        copied.push(copy.key)
      } catch (error) {
        failed.push({ key: copy.key, error })
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, copies.length) }, worker))
  const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return { copied: copied.sort(byKey), failed: failed.sort((a, b) => byKey(a.key, b.key)) }
}
