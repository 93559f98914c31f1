/**
 * Cached answers come back from the Cache port as text, and a busy credential comes back as the same text on every
 * request: decoding it once per text, and keeping the result, spares a JSON parse and a schema check per request
 * (issue 10). Safe because a text always decodes to the same value; bounded, the oldest text leaving first.
 */
import * as Context from "effect/Context"
import * as Option from "effect/Option"

/** How many cached credential checks each memo keeps decoded unless the host says otherwise. */
export const DECODED_CREDENTIALS_MAX = 1_000

/**
 * How many cached credential checks (schema token grants, API-key checks, sessions) each process keeps decoded, per
 * kind: `COFFER_DECODED_CREDENTIALS_MAX`.
 */
export const DecodedCredentialsMax = Context.Reference<number>("@coffer/kernel/DecodedCredentialsMax", {
  defaultValue: () => DECODED_CREDENTIALS_MAX,
})

/**
 * `decode` remembered for the texts it accepted, at most `max` of them (the bound in force when a text is added);
 * `undefined` for a text it refuses (not remembered).
 */
export const decodeOnce = <A>(decode: (text: string) => Option.Option<A>) => {
  const decoded = new Map<string, A>()
  return (text: string, max: number): A | undefined => {
    const known = decoded.get(text)
    if (known !== undefined) return known
    const fresh = decode(text)
    if (Option.isNone(fresh)) return undefined
    while (decoded.size >= max) decoded.delete(decoded.keys().next().value!)
    decoded.set(text, fresh.value)
    return fresh.value
  }
}
